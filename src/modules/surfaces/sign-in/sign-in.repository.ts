import type { Kysely } from 'kysely';
import type { DB, SignInLinkPurpose, SignInMethod } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access, InternalUserRole } from '../../../lib/caller.js';
import { lockedForUpdate } from '../../../db/rows.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';

/**
 * Sign-in's storage: its own tables only (sessions, links, credentials, identities, the portal's app keys). The people
 * are the directory's clients and the internal users, read and written through those modules' faces (sign-in.people.ts);
 * one query alone joins them: `findSession`, below.
 */

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

/** Whose row it is: a client or an internal user. */
export type PersonRef = Pick<Person, 'type' | 'id'>;

/** The columns naming whose row it is. */
const personColumns = (person: PersonRef) => ({
  client_id: person.type === 'client' ? person.id : null,
  internal_user_id: person.type === 'internalUser' ? person.id : null,
});

const personColumn = (type: UserType) => (type === 'client' ? 'client_id' : 'internal_user_id');

/** The person a row names (exactly one of its two columns is set). */
const refOf = (row: { client_id: string | null; internal_user_id: string | null }): PersonRef =>
  row.client_id !== null ? { type: 'client', id: row.client_id } : { type: 'internalUser', id: row.internal_user_id as string };

// ---- credentials ---------------------------------------------------------------------------------------------

/** A person's password and second factor, as stored. */
export interface Credentials {
  id: string;
  /** Argon2id, PHC string; null: no password set. */
  passwordHash: string | null;
  /** base32; set at enrolment, in force once `totpEnabledAt` is set. */
  totpSecret: string | null;
  totpEnabledAt: string | null;
  /** The last time step a code was accepted for. */
  totpLastStep: number | null;
  /** SHA-256 hashes of the unused recovery codes. */
  recoveryCodeHashes: string[];
}

/** What `saveCredentials` changes: only the fields given. */
export interface CredentialChanges {
  passwordHash?: string;
  passwordChangedAt?: string;
  totpSecret?: string | null;
  totpEnabledAt?: string | null;
  totpLastStep?: number | null;
  recoveryCodeHashes?: string[] | null;
}

/**
 * The person's credentials. With `lockFor` (inside a transaction), locked until it ends on PostgreSQL: a code is
 * then used once however many requests send it at once (the next reads what the first one wrote); SQLite has one writer.
 */
export async function findCredentials(
  db: Kysely<DB>,
  access: Access,
  person: PersonRef,
  lockFor?: 'sqlite' | 'postgres',
): Promise<Credentials | undefined> {
  const query = db
    .selectFrom('sign_in_credentials')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where(personColumn(person.type), '=', person.id);
  const row = await (lockFor ? lockedForUpdate(query, lockFor) : query).executeTakeFirst();
  return (
    row && {
      id: row.id,
      passwordHash: row.password_hash,
      totpSecret: row.totp_secret,
      totpEnabledAt: row.totp_enabled_at,
      totpLastStep: row.totp_last_step,
      recoveryCodeHashes: JSON.parse(row.recovery_code_hashes ?? '[]'),
    }
  );
}

/** Creates the person's credentials row or changes it: only the fields given. */
export function saveCredentials(
  work: UnitOfWork,
  access: Access,
  person: PersonRef,
  id: string,
  changes: CredentialChanges,
  at: string,
): void {
  const columns = {
    ...(changes.passwordHash !== undefined ? { password_hash: changes.passwordHash } : {}),
    ...(changes.passwordChangedAt !== undefined ? { password_changed_at: changes.passwordChangedAt } : {}),
    ...(changes.totpSecret !== undefined ? { totp_secret: changes.totpSecret } : {}),
    ...(changes.totpEnabledAt !== undefined ? { totp_enabled_at: changes.totpEnabledAt } : {}),
    ...(changes.totpLastStep !== undefined ? { totp_last_step: changes.totpLastStep } : {}),
    ...(changes.recoveryCodeHashes !== undefined
      ? { recovery_code_hashes: changes.recoveryCodeHashes === null ? null : JSON.stringify(changes.recoveryCodeHashes) }
      : {}),
  };
  work.write(
    work.db
      .insertInto('sign_in_credentials')
      .values({ id, workspace_id: access.workspaceId, ...personColumns(person), ...columns, updated_at: at })
      .onConflict((oc) => oc.column(personColumn(person.type)).doUpdateSet({ ...columns, updated_at: at })),
  );
}

// ---- sessions ------------------------------------------------------------------------------------------------

export interface NewSession {
  id: string;
  person: PersonRef;
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

export function insertSession(work: UnitOfWork, access: Access, session: NewSession): void {
  work.write(
    work.db.insertInto('sign_in_sessions').values({
      id: session.id,
      workspace_id: access.workspaceId,
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

/** An unrevoked session as stored, with what the request it opens needs of its person and workspace. */
export interface StoredSession {
  id: string;
  method: SignInMethod;
  stage: 'active' | 'mfa';
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** It passed a second factor. */
  secondFactor: boolean;
  /** The person, undefined when removed since. */
  person: Person | undefined;
  /** Whether the person has TOTP on. */
  totpEnabled: boolean;
  /** What the person sees through the API: a client its companies; an internal user limited to some companies those, else all (null). */
  companyIds: string[] | null;
  /** The workspace's: whether it requires TOTP of staff, its daily quota, its clock's offset. */
  staffMfaRequired: boolean;
  dailyQuota: number;
  clockOffsetMs: number;
}

/**
 * An unrevoked session by its cookie's hash (or its id), in its workspace, with its person (undefined when removed since),
 * whether that person has TOTP on and whether the workspace requires it of staff, in one query: this runs on every
 * signed-in request, and on every /v1 request a person makes with its cookie (plugins/auth.ts). The one exception to
 * this module reading only its own tables (as the credentials module's `session_for_request`): it joins the
 * workspace, the person (a client or an internal user) and its credentials. Expiry and idleness are the caller's to check.
 */
export async function findSession(
  db: Kysely<DB>,
  access: Access,
  by: { tokenHash: string } | { id: string },
): Promise<StoredSession | undefined> {
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
    .where('s.workspace_id', '=', access.workspaceId)
    .where('s.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const workspaceId = access.workspaceId;
  const person: Person | undefined =
    row.client_id !== null && row.client_email !== null && row.client_status !== null && row.client_company_id !== null
      ? {
          type: 'client',
          id: row.client_id,
          workspaceId,
          email: row.client_email,
          givenName: row.client_given_name ?? '',
          familyName: row.client_family_name ?? '',
          status: row.client_status,
          companyId: row.client_company_id,
          role: null,
        }
      : row.user_id !== null && row.user_email !== null && row.user_role !== null
        ? {
            type: 'internalUser',
            id: row.user_id,
            workspaceId,
            email: row.user_email,
            givenName: row.user_given_name ?? '',
            familyName: row.user_family_name ?? '',
            status: null,
            companyId: null,
            role: row.user_role,
          }
        : undefined;
  const companyIds =
    person?.type === 'client'
      ? (row.client_company_ids ?? '').split(',').filter(Boolean)
      : row.user_access_limited === 1
        ? (row.user_company_access_list ?? '').split(',').filter(Boolean)
        : null;
  return {
    id: row.id,
    method: row.method,
    stage: row.stage,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    secondFactor: row.second_factor === 1,
    person,
    totpEnabled: Boolean(row.client_totp_enabled_at ?? row.user_totp_enabled_at),
    companyIds,
    staffMfaRequired: row.staff_mfa_required === 1,
    dailyQuota: row.daily_quota,
    clockOffsetMs: Number(row.clock_offset_ms),
  };
}

export async function touchSession(db: Kysely<DB>, access: Access, id: string, at: string): Promise<void> {
  await db
    .updateTable('sign_in_sessions')
    .set({ last_seen_at: at })
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .execute();
}

/**
 * The app sessions a sign-in opened end with it (modules/resources/credentials checks the sign-in on each request): the
 * credentials this process cached are verified again at once; other processes' within AUTH_CACHE_TTL_MS.
 */
const appSessionsEnd = (work: UnitOfWork) => work.onCommit(() => credentialsChanged(work.database));

export function revokeSession(work: UnitOfWork, access: Access, id: string, at: string): void {
  work.write(
    work.db
      .updateTable('sign_in_sessions')
      .set({ revoked_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null),
  );
  appSessionsEnd(work);
}

/**
 * Ends a session once: `then` learns, inside the transaction, whether this request is the one that ended it (of two
 * at once, exactly one is), so a half session opens at most one session.
 */
export function endSessionOnce(work: UnitOfWork, access: Access, id: string, at: string, then: (ended: boolean) => void): void {
  work.writeReturning(
    work.db
      .updateTable('sign_in_sessions')
      .set({ revoked_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning('id')
      .compile(),
    (row) => then(row !== undefined),
  );
}

/** Ends every session of a person (a password reset or change: all but `exceptId`, the session that made the change). */
export function revokeSessionsOf(work: UnitOfWork, access: Access, person: PersonRef, at: string, exceptId?: string): void {
  let query = work.db
    .updateTable('sign_in_sessions')
    .set({ revoked_at: at })
    .where('workspace_id', '=', access.workspaceId)
    .where(personColumn(person.type), '=', person.id)
    .where('revoked_at', 'is', null);
  if (exceptId) query = query.where('id', '<>', exceptId);
  work.write(query);
  appSessionsEnd(work);
}

// ---- one-time links ------------------------------------------------------------------------------------------

export function insertLink(
  work: UnitOfWork,
  access: Access,
  link: { id: string; person: PersonRef; tokenHash: string; purpose: SignInLinkPurpose; createdAt: string; expiresAt: string },
): void {
  work.write(
    work.db.insertInto('sign_in_links').values({
      id: link.id,
      workspace_id: access.workspaceId,
      ...personColumns(link.person),
      token_hash: link.tokenHash,
      purpose: link.purpose,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
      used_at: null,
    }),
  );
}

/** An e-mailed link, by its token's hash. */
export interface StoredLink {
  id: string;
  person: PersonRef;
  purpose: SignInLinkPurpose;
  expiresAt: string;
  usedAt: string | null;
}

export async function findLink(db: Kysely<DB>, access: Access, tokenHash: string): Promise<StoredLink | undefined> {
  const row = await db
    .selectFrom('sign_in_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('workspace_id', '=', access.workspaceId)
    .executeTakeFirst();
  return row && { id: row.id, person: refOf(row), purpose: row.purpose, expiresAt: row.expires_at, usedAt: row.used_at };
}

/**
 * Uses a link once: the row changes only while unused, and `then` learns whether it did, inside the
 * transaction, so of two redemptions at once exactly one goes on.
 */
export function useLink(work: UnitOfWork, access: Access, id: string, at: string, then: (used: boolean) => void): void {
  work.writeReturning(
    work.db
      .updateTable('sign_in_links')
      .set({ used_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .returning('id')
      .compile(),
    (row) => then(row !== undefined),
  );
}

/** Forgets a person's links of one purpose (a new one was sent), or of every purpose (the password was changed or reset). */
export function deleteLinksOf(work: UnitOfWork, access: Access, person: PersonRef, purpose?: SignInLinkPurpose): void {
  const query = work.db
    .deleteFrom('sign_in_links')
    .where('workspace_id', '=', access.workspaceId)
    .where(personColumn(person.type), '=', person.id);
  work.write(purpose ? query.where('purpose', '=', purpose) : query);
}

// ---- identities at OpenID providers --------------------------------------------------------------------------

/** The person an identity at a provider is linked to, or undefined. */
export async function findIdentity(db: Kysely<DB>, access: Access, provider: string, subject: string): Promise<PersonRef | undefined> {
  const row = await db
    .selectFrom('sign_in_identities')
    .select(['client_id', 'internal_user_id'])
    .where('workspace_id', '=', access.workspaceId)
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row && refOf(row);
}

/** A person's identities, as the API shows them. */
export async function listIdentities(
  db: Kysely<DB>,
  access: Access,
  person: PersonRef,
): Promise<{ provider: string; email?: string; createdAt: string }[]> {
  const rows = await db
    .selectFrom('sign_in_identities')
    .select(['provider', 'email', 'created_at'])
    .where('workspace_id', '=', access.workspaceId)
    .where(personColumn(person.type), '=', person.id)
    .orderBy('provider')
    .execute();
  return rows.map((row) => ({ provider: row.provider, ...(row.email ? { email: row.email } : {}), createdAt: row.created_at }));
}

/** Links an identity; a subject linked to someone else, or a second identity at one provider, is a 409. */
export function insertIdentity(
  work: UnitOfWork,
  access: Access,
  identity: { id: string; person: PersonRef; provider: string; subject: string; email: string | null; createdAt: string },
): void {
  work.write(
    work.db.insertInto('sign_in_identities').values({
      id: identity.id,
      workspace_id: access.workspaceId,
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

export function deleteIdentity(work: UnitOfWork, access: Access, person: PersonRef, provider: string): void {
  work.write(
    work.db
      .deleteFrom('sign_in_identities')
      .where('workspace_id', '=', access.workspaceId)
      .where(personColumn(person.type), '=', person.id)
      .where('provider', '=', provider),
  );
}

// ---- app keys for signed-in people's app sessions ------------------------------------------------------------

export function saveAppKey(
  work: UnitOfWork,
  access: Access,
  row: { installId: string; apiKeyId: string; sealedKey: string; at: string },
): void {
  const values = { api_key_id: row.apiKeyId, sealed_key: row.sealedKey, created_at: row.at };
  work.write(
    work.db
      .insertInto('portal_app_keys')
      .values({ install_id: row.installId, workspace_id: access.workspaceId, ...values })
      .onConflict((oc) => oc.column('install_id').doUpdateSet(values)),
  );
}

/** The sealed key of an install's app, and which key it is (whether it is still active is the credentials module's to say). */
export async function findAppKey(
  db: Kysely<DB>,
  access: Access,
  installId: string,
): Promise<{ sealedKey: string; apiKeyId: string } | undefined> {
  const row = await db
    .selectFrom('portal_app_keys')
    .select(['sealed_key', 'api_key_id'])
    .where('workspace_id', '=', access.workspaceId)
    .where('install_id', '=', installId)
    .executeTakeFirst();
  return row && { sealedKey: row.sealed_key, apiKeyId: row.api_key_id };
}
