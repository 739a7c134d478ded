import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { joinIds, nonEmpty, splitIds } from '../../../db/rows.js';
import type { AppConnectionsTable, DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { AppConnection, AppConnectionListQuery } from './connections.schemas.js';

function toConnection(row: AppConnectionsTable): AppConnection {
  const clientIds = splitIds(row.client_ids);
  const content = row.type === 'embed' ? { embedCode: row.content } : { embedLink: row.content };
  return {
    id: row.id,
    object: 'appConnection',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    type: row.type,
    membershipType: row.membership_type,
    clientIds: row.membership_type === 'company' && clientIds.length === 0 ? null : clientIds,
    companyId: row.company_id,
    content: row.content,
    installId: row.install_id,
    domainMetadata: {
      autoSizeEmbed: row.auto_size_embed === 1,
      companyId: row.company_id,
      ...content,
      memberIDs: Object.fromEntries(clientIds.map((id) => [id, true])),
    },
  };
}

/**
 * A page of an install's connections. `clientId`: those the client sees (it is a member, or the
 * connection is its company's); a client session sees only its own that way; a principal limited to
 * some companies only theirs. Filters are conditions over the install's index range.
 */
export function listConnections(
  db: Kysely<DB>,
  access: Access,
  installId: string,
  query: AppConnectionListQuery,
  tokens: PageTokens,
): Promise<Page<AppConnection>> {
  const { limit, nextToken, companyId } = query;
  const clientId = access.clientId ?? query.clientId;
  let q = db
    .selectFrom('app_connections')
    .selectAll('app_connections')
    .where('app_connections.workspace_id', '=', access.workspaceId)
    .where('app_connections.install_id', '=', installId);
  if (companyId !== undefined) q = q.where('app_connections.company_id', '=', companyId);
  if (access.companyIds) q = q.where('app_connections.company_id', 'in', nonEmpty(access.companyIds));
  if (clientId !== undefined) {
    q = q.where(({ or, and, eb, exists, selectFrom }) =>
      or([
        exists(
          selectFrom('app_connection_members as m')
            .select('m.client_id')
            .whereRef('m.connection_id', '=', 'app_connections.id')
            .where('m.client_id', '=', clientId),
        ),
        and([
          eb('app_connections.membership_type', '=', 'company'),
          eb(
            'app_connections.company_id',
            'in',
            selectFrom('client_companies as cc')
              .select('cc.company_id')
              .where('cc.workspace_id', '=', access.workspaceId)
              .where('cc.client_id', '=', clientId),
          ),
        ]),
      ]),
    );
  }
  const scope = pageScope(access, `connections:${installId}`, { clientId, companyId });
  return fetchPage(q, 'app_connections', { limit, nextToken }, tokens, scope, toConnection);
}

export function insertConnection(work: UnitOfWork, access: Access, connection: AppConnection): void {
  const clientIds = connection.clientIds ?? [];
  work.write(
    work.db.insertInto('app_connections').values({
      id: connection.id,
      workspace_id: access.workspaceId,
      install_id: connection.installId,
      type: connection.type,
      membership_type: connection.membershipType,
      company_id: connection.companyId,
      client_ids: joinIds(clientIds),
      content: connection.content,
      auto_size_embed: connection.domainMetadata.autoSizeEmbed ? 1 : 0,
      created_at: connection.createdAt,
      updated_at: connection.updatedAt,
    }),
  );
  if (clientIds.length > 0) {
    work.write(
      work.db.insertInto('app_connection_members').values(clientIds.map((client_id) => ({ connection_id: connection.id, client_id }))),
    );
  }
}
