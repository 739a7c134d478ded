import type { Kysely } from 'kysely';
import type { DB, SignInLinkPurpose, SignInMethod } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { InternalUserRole } from '../../lib/caller.js';
import { lockedForUpdate } from '../../db/rows.js';
import { credentialsChanged } from '../../lib/credential-cache.js';

export type UserType = 'client' | 'internalUser';

/** A person who may sign in: a client or an internal user of one workspace, with what sign-in needs of them. */
export interface Person {
  type: UserType;
  id: string;
  workspaceId: string;
  email: string;
  givenName: string;
  familyName: string;
  /** A client's status (`invited`, `active`, …); null for an internal user. */
  status: string | null;
  /** A client's primary company; null for an internal user. */
  companyId: string | null;
  /** An internal user's role; null for a client. */
  role: InternalUserRole | null;
}

/** The columns naming whose row it is. */
const personColumns = (person: Pick<Person, 'type' | 'id'>) => ({
  client_id: person.type === 'client' ? person.id : null,
  internal_user_id: person.type === 'internalUser' ? person.id : null,
});

const personColumn = (type: UserType) => (type === 'client' ? 'client_id' : 'internal_user_id');

function clientsQuery(db: Kysely<DB>, workspaceId: string) {
  return db
    .selectFrom('clients')
    .select(['id', 'workspace_id', 'email', 'given_name', 'family_name', 'status', 'company_id'])
    .where('workspace_id', '=', workspaceId);
}

function internalUsersQuery(db: Kysely<DB>, workspaceId: string) {
  return db
    .selectFrom('internal_users')
    .select(['id', 'workspace_id', 'email', 'given_name', 'family_name', 'role'])
    .where('workspace_id', '=', workspaceId);
}

type ClientRow = {
  id: string;
  workspace_id: string;
  email: string;
  given_name: string;
  family_name: string;
  status: string;
  company_id: string;
};
type UserRow = { id: string; workspace_id: string; email: string; given_name: string; family_name: string; role: InternalUserRole };

const clientPerson = (row: ClientRow): Person => ({
  type: 'client',
  id: row.id,
  workspaceId: row.workspace_id,
  email: row.email,
  givenName: row.given_name,
  familyName: row.family_name,
  status: row.status,
  companyId: row.company_id,
  role: null,
});
const userPerson = (row: UserRow): Person => ({
  type: 'internalUser',
  id: row.id,
  workspaceId: row.workspace_id,
  email: row.email,
  givenName: row.given_name,
  familyName: row.family_name,
  status: null,
  companyId: null,
  role: row.role,
});

/** The person of a workspace with this e-mail (case-insensitively), or undefined. */
export async function findPersonByEmail(db: Kysely<DB>, workspaceId: string, type: UserType, email: string): Promise<Person | undefined> {
  const key = email.trim().toLowerCase();
  if (type === 'client') {
    const row = await clientsQuery(db, workspaceId).where('email_key', '=', key).executeTakeFirst();
    return row && clientPerson(row);
  }
  const row = await internalUsersQuery(db, workspaceId).where('email_key', '=', key).executeTakeFirst();
  return row && userPerson(row);
}

export async function findPerson(db: Kysely<DB>, workspaceId: string, type: UserType, id: string): Promise<Person | undefined> {
  if (type === 'client') {
    const row = await clientsQuery(db, workspaceId).where('id', '=', id).executeTakeFirst();
    return row && clientPerson(row);
  }
  const row = await internalUsersQuery(db, workspaceId).where('id', '=', id).executeTakeFirst();
  return row && userPerson(row);
}

/** The person a row names (exactly one of its two columns is set). */
export const refOf = (row: { client_id: string | null; internal_user_id: string | null }): { type: UserType; id: string } =>
  row.client_id !== null ? { type: 'client', id: row.client_id } : { type: 'internalUser', id: row.internal_user_id as string };

// ---- credentials ---------------------------------------------------------------------------------------------

/**
 * The person's credentials. With `lockFor` (inside a transaction), locked until it ends on PostgreSQL: a code is
 * then used once however many requests send it at once (the next reads what the first one wrote); SQLite has one writer.
 */
export async function findCredentials(
  db: Kysely<DB>,
  person: Pick<Person, 'workspaceId' | 'type' | 'id'>,
  lockFor?: 'sqlite' | 'postgres',
) {
  const query = db
    .selectFrom('sign_in_credentials')
    .selectAll()
    .where('workspace_id', '=', person.workspaceId)
    .where(personColumn(person.type), '=', person.id);
  return (lockFor ? lockedForUpdate(query, lockFor) : query).executeTakeFirst();
}

/** Creates the person's credentials row or changes it: only the columns given. */
export function saveCredentials(
  work: UnitOfWork,
  person: Pick<Person, 'workspaceId' | 'type' | 'id'>,
  id: string,
  changes: {
    password_hash?: string;
    password_changed_at?: string;
    totp_secret?: string | null;
    totp_enabled_at?: string | null;
    totp_last_step?: number | null;
    recovery_code_hashes?: string | null;
  },
  at: string,
): void {
  work.write(
    work.db
      .insertInto('sign_in_credentials')
      .values({ id, workspace_id: person.workspaceId, ...personColumns(person), ...changes, updated_at: at })
      .onConflict((oc) => oc.column(personColumn(person.type)).doUpdateSet({ ...changes, updated_at: at })),
  );
}

// ---- sessions ------------------------------------------------------------------------------------------------

export interface NewSession {
  id: string;
  workspaceId: string;
  person: Pick<Person, 'type' | 'id'>;
  tokenHash: string;
  method: SignInMethod;
  stage: 'active' | 'mfa';
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  /** Whether it passed a second factor (the TOTP step, or enrolling one to finish signing in). */
  secondFactor: boolean;
}

export function insertSession(work: UnitOfWork, session: NewSession): void {
  work.write(
    work.db.insertInto('sign_in_sessions').values({
      id: session.id,
      workspace_id: session.workspaceId,
      ...personColumns(session.person),
      token_hash: session.tokenHash,
      method: session.method,
      stage: session.stage,
      ip: session.ip,
      user_agent: session.userAgent,
      created_at: session.createdAt,
      last_seen_at: session.createdAt,
      expires_at: session.expiresAt,
      revoked_at: null,
      second_factor: session.secondFactor ? 1 : 0,
    }),
  );
}

/**
 * An unrevoked session by its cookie's hash (or its id), in its workspace, with its person (undefined when removed since),
 * whether that person has TOTP on and whether the workspace requires it of staff, in one query: this runs on every
 * signed-in request. Expiry and idleness are the caller's to check.
 */
export async function findSession(db: Kysely<DB>, workspaceId: string, by: { tokenHash: string } | { id: string }) {
  const row = await db
    .selectFrom('sign_in_sessions as s')
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .leftJoin('clients as c', (join) => join.onRef('c.id', '=', 's.client_id').onRef('c.workspace_id', '=', 's.workspace_id'))
    .leftJoin('internal_users as u', (join) => join.onRef('u.id', '=', 's.internal_user_id').onRef('u.workspace_id', '=', 's.workspace_id'))
    .leftJoin('sign_in_credentials as cc', 'cc.client_id', 's.client_id')
    .leftJoin('sign_in_credentials as uc', 'uc.internal_user_id', 's.internal_user_id')
    .select([
      's.id',
      's.method',
      's.stage',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      's.second_factor',
      'w.staff_mfa_required',
      'w.daily_quota',
      'w.clock_offset_ms',
      'c.id as client_id',
      'c.company_ids as client_company_ids',
      'c.email as client_email',
      'c.given_name as client_given_name',
      'c.family_name as client_family_name',
      'c.status as client_status',
      'c.company_id as client_company_id',
      'u.id as user_id',
      'u.email as user_email',
      'u.given_name as user_given_name',
      'u.family_name as user_family_name',
      'u.role as user_role',
      'u.is_client_access_limited as user_access_limited',
      'u.company_access_list as user_company_access_list',
      'cc.totp_enabled_at as client_totp_enabled_at',
      'uc.totp_enabled_at as user_totp_enabled_at',
    ])
    .where('id' in by ? 's.id' : 's.token_hash', '=', 'id' in by ? by.id : by.tokenHash)
    .where('s.workspace_id', '=', workspaceId)
    .where('s.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const common = { workspace_id: workspaceId };
  const person =
    row.client_id !== null && row.client_email !== null && row.client_status !== null && row.client_company_id !== null
      ? clientPerson({
          ...common,
          id: row.client_id,
          email: row.client_email,
          given_name: row.client_given_name ?? '',
          family_name: row.client_family_name ?? '',
          status: row.client_status,
          company_id: row.client_company_id,
        })
      : row.user_id !== null && row.user_email !== null && row.user_role !== null
        ? userPerson({
            ...common,
            id: row.user_id,
            email: row.user_email,
            given_name: row.user_given_name ?? '',
            family_name: row.user_family_name ?? '',
            role: row.user_role,
          })
        : undefined;
  // What the person sees through the API: a client its companies; an internal user limited to some companies those, else all (null).
  const companyIds =
    person?.type === 'client'
      ? (row.client_company_ids ?? '').split(',').filter(Boolean)
      : row.user_access_limited === 1
        ? (row.user_company_access_list ?? '').split(',').filter(Boolean)
        : null;
  return {
    ...row,
    person,
    companyIds,
    dailyQuota: row.daily_quota,
    clockOffsetMs: Number(row.clock_offset_ms),
    totpEnabled: Boolean(row.client_totp_enabled_at ?? row.user_totp_enabled_at),
  };
}

export function touchSession(db: Kysely<DB>, id: string, at: string) {
  return db.updateTable('sign_in_sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

/**
 * The app sessions a sign-in opened end with it (modules/credentials checks the sign-in on each request): the
 * credentials this process cached are verified again at once; other processes' within AUTH_CACHE_TTL_MS.
 */
const appSessionsEnd = (work: UnitOfWork) => work.onCommit(() => credentialsChanged(work.database));

export function revokeSession(work: UnitOfWork, id: string, at: string): void {
  work.write(work.db.updateTable('sign_in_sessions').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null));
  appSessionsEnd(work);
}

/**
 * Ends a session once: `then` learns, inside the transaction, whether this request is the one that ended it (of two
 * at once, exactly one is), so a half session opens at most one session.
 */
export function endSessionOnce(work: UnitOfWork, id: string, at: string, then: (ended: boolean) => void): void {
  work.writeReturning(
    work.db
      .updateTable('sign_in_sessions')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning('id')
      .compile(),
    (row) => then(row !== undefined),
  );
}

/** Ends every session of a person (a password reset or change: all but `exceptId`, the session that made the change). */
export function revokeSessionsOf(
  work: UnitOfWork,
  person: Pick<Person, 'workspaceId' | 'type' | 'id'>,
  at: string,
  exceptId?: string,
): void {
  let query = work.db
    .updateTable('sign_in_sessions')
    .set({ revoked_at: at })
    .where('workspace_id', '=', person.workspaceId)
    .where(personColumn(person.type), '=', person.id)
    .where('revoked_at', 'is', null);
  if (exceptId) query = query.where('id', '<>', exceptId);
  work.write(query);
  appSessionsEnd(work);
}

// ---- one-time links ------------------------------------------------------------------------------------------

export function insertLink(
  work: UnitOfWork,
  link: { id: string; person: Person; tokenHash: string; purpose: SignInLinkPurpose; createdAt: string; expiresAt: string },
): void {
  work.write(
    work.db.insertInto('sign_in_links').values({
      id: link.id,
      workspace_id: link.person.workspaceId,
      ...personColumns(link.person),
      token_hash: link.tokenHash,
      purpose: link.purpose,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
      used_at: null,
    }),
  );
}

export function findLink(db: Kysely<DB>, workspaceId: string, tokenHash: string) {
  return db
    .selectFrom('sign_in_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * Uses a link once: the row changes only while unused, and `then` learns whether it did, inside the
 * transaction, so of two redemptions at once exactly one goes on.
 */
export function useLink(work: UnitOfWork, id: string, at: string, then: (used: boolean) => void): void {
  work.writeReturning(
    work.db.updateTable('sign_in_links').set({ used_at: at }).where('id', '=', id).where('used_at', 'is', null).returning('id').compile(),
    (row) => then(row !== undefined),
  );
}

/** Forgets a person's links of one purpose (a new one was sent), or of every purpose (the password was changed or reset). */
export function deleteLinksOf(work: UnitOfWork, person: Person, purpose?: SignInLinkPurpose): void {
  const query = work.db
    .deleteFrom('sign_in_links')
    .where('workspace_id', '=', person.workspaceId)
    .where(personColumn(person.type), '=', person.id);
  work.write(purpose ? query.where('purpose', '=', purpose) : query);
}

// ---- invites -------------------------------------------------------------------------------------------------

/**
 * The client an invite link was sent to (the hash of its token), with the link's expiry. With `lockFor` (inside a
 * transaction), its row locked until it ends on PostgreSQL: of requests accepting one invite at once, the next finds
 * the invite spent by the first (SQLite has one writer).
 */
export async function findInvitedClient(db: Kysely<DB>, workspaceId: string, tokenHash: string, lockFor?: 'sqlite' | 'postgres') {
  const query = clientsQuery(db, workspaceId).select('invite_expires_at').where('invite_token_hash', '=', tokenHash);
  const row = await (lockFor ? lockedForUpdate(query, lockFor) : query).executeTakeFirst();
  return row && { person: clientPerson(row), expiresAt: row.invite_expires_at };
}

/**
 * A client signed in: its last sign-in, and its first makes it `active` (the invite link spent). `activated` learns,
 * inside the transaction, whether this sign-in was the one that did (of two at once, exactly one is).
 */
export function recordClientSignIn(work: UnitOfWork, person: Person, at: string, activated: (first: boolean) => void): void {
  const client = (query: ReturnType<typeof work.db.updateTable<'clients'>>) =>
    query.where('workspace_id', '=', person.workspaceId).where('id', '=', person.id);
  work.write(client(work.db.updateTable('clients').set({ last_login_date: at })));
  const activation = { status: 'active' as const, first_login_date: at, invite_token_hash: null, invite_expires_at: null, updated_at: at };
  work.writeReturning(
    client(work.db.updateTable('clients').set(activation)).where('status', '<>', 'active').returning('id').compile(),
    (row) => activated(row !== undefined),
  );
}

export async function staffMfaRequired(db: Kysely<DB>, workspaceId: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('workspaces').select('staff_mfa_required').where('id', '=', workspaceId).executeTakeFirst();
  return row && row.staff_mfa_required === 1;
}

// ---- identities at OpenID providers --------------------------------------------------------------------------

export function findIdentity(db: Kysely<DB>, workspaceId: string, provider: string, subject: string) {
  return db
    .selectFrom('sign_in_identities')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

export function listIdentities(db: Kysely<DB>, person: Pick<Person, 'workspaceId' | 'type' | 'id'>) {
  return db
    .selectFrom('sign_in_identities')
    .select(['provider', 'email', 'created_at'])
    .where('workspace_id', '=', person.workspaceId)
    .where(personColumn(person.type), '=', person.id)
    .orderBy('provider')
    .execute();
}

/** Links an identity; a subject linked to someone else, or a second identity at one provider, is a 409. */
export function insertIdentity(
  work: UnitOfWork,
  identity: { id: string; person: Person; provider: string; subject: string; email: string | null; createdAt: string },
): void {
  work.write(
    work.db.insertInto('sign_in_identities').values({
      id: identity.id,
      workspace_id: identity.person.workspaceId,
      ...personColumns(identity.person),
      provider: identity.provider,
      subject: identity.subject,
      email: identity.email,
      created_at: identity.createdAt,
    }),
    {
      sign_in_identities_subject: identity.provider,
      sign_in_identities_client: identity.provider,
      sign_in_identities_internal_user: identity.provider,
    },
  );
}

export function deleteIdentity(work: UnitOfWork, person: Pick<Person, 'workspaceId' | 'type' | 'id'>, provider: string): void {
  work.write(
    work.db
      .deleteFrom('sign_in_identities')
      .where('workspace_id', '=', person.workspaceId)
      .where(personColumn(person.type), '=', person.id)
      .where('provider', '=', provider),
  );
}

// ---- app keys for signed-in people's app sessions ------------------------------------------------------------

export function saveAppKey(
  work: UnitOfWork,
  row: { installId: string; workspaceId: string; apiKeyId: string; sealedKey: string; at: string },
): void {
  const values = { api_key_id: row.apiKeyId, sealed_key: row.sealedKey, created_at: row.at };
  work.write(
    work.db
      .insertInto('portal_app_keys')
      .values({ install_id: row.installId, workspace_id: row.workspaceId, ...values })
      .onConflict((oc) => oc.column('install_id').doUpdateSet(values)),
  );
}

/** The sealed key of an install, with the install's app (its key revoked since: none). */
export function findAppKey(db: Kysely<DB>, workspaceId: string, installId: string) {
  return db
    .selectFrom('portal_app_keys')
    .innerJoin('api_keys', 'api_keys.id', 'portal_app_keys.api_key_id')
    .select(['portal_app_keys.sealed_key', 'portal_app_keys.api_key_id'])
    .where('portal_app_keys.workspace_id', '=', workspaceId)
    .where('portal_app_keys.install_id', '=', installId)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}
