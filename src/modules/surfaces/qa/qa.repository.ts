import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import type { DB, QaPrincipalKind } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { QaPrincipal, QaPrincipalListQuery } from './qa.schemas.js';

interface Row {
  id: string;
  kind: QaPrincipalKind;
  created_at: string;
  client_email: string | null;
  client_given_name: string | null;
  client_family_name: string | null;
  user_email: string | null;
  user_given_name: string | null;
  user_family_name: string | null;
}

function toPrincipal(row: Row): QaPrincipal {
  const client = row.kind === 'client';
  return {
    id: row.id,
    object: 'qaPrincipal',
    kind: row.kind,
    email: (client ? row.client_email : row.user_email) ?? '',
    givenName: (client ? row.client_given_name : row.user_given_name) ?? '',
    familyName: (client ? row.client_family_name : row.user_family_name) ?? '',
    createdAt: row.created_at,
  };
}

/** The workspace's QA principals with their person's name and email (the mark goes with the person: foreign keys cascade). */
function principals(db: Kysely<DB>, access: Access) {
  return db
    .selectFrom('qa_principals')
    .leftJoin('clients', 'clients.id', 'qa_principals.client_id')
    .leftJoin('internal_users', 'internal_users.id', 'qa_principals.internal_user_id')
    .select([
      'qa_principals.id',
      'qa_principals.kind',
      'qa_principals.created_at',
      'clients.email as client_email',
      'clients.given_name as client_given_name',
      'clients.family_name as client_family_name',
      'internal_users.email as user_email',
      'internal_users.given_name as user_given_name',
      'internal_users.family_name as user_family_name',
    ])
    .where('qa_principals.workspace_id', '=', access.workspaceId);
}

export function listQaPrincipals(
  db: Kysely<DB>,
  access: Access,
  query: QaPrincipalListQuery,
  tokens: PageTokens,
): Promise<Page<QaPrincipal>> {
  return fetchPage(principals(db, access), 'qa_principals', query, tokens, pageScope(access, 'qa_principals'), toPrincipal);
}

export async function findQaPrincipal(db: Kysely<DB>, access: Access, id: string): Promise<QaPrincipal | undefined> {
  const row = await principals(db, access).where('qa_principals.id', '=', id).executeTakeFirst();
  return row && toPrincipal(row);
}

export function insertQaPrincipal(
  work: UnitOfWork,
  access: Access,
  principal: { id: string; kind: QaPrincipalKind; email: string; createdAt: string },
) {
  work.write(
    work.db.insertInto('qa_principals').values({
      id: principal.id,
      workspace_id: access.workspaceId,
      kind: principal.kind,
      client_id: principal.kind === 'client' ? principal.id : null,
      internal_user_id: principal.kind === 'internalUser' ? principal.id : null,
      created_at: principal.createdAt,
    }),
    { qa_principals_pkey: principal.email },
  );
}

export function deleteQaPrincipal(work: UnitOfWork, access: Access, id: string) {
  work.write(work.db.deleteFrom('qa_principals').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}
