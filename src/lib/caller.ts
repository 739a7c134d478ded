import { errors } from './errors.js';

/**
 * Who is calling, in one value: the principal (what authenticated), what it may see (`Access`) and
 * how its changes are recorded (`Actor`). Built once per request by the auth plugin (or by the
 * `portal` command for the system) and handed to services. Imports nothing from plugins/ or modules/.
 */

export const INTERNAL_USER_ROLES = ['admin', 'staff'] as const;
export type InternalUserRole = (typeof INTERNAL_USER_ROLES)[number];

interface KeyBacked {
  workspaceId: string;
  /** The API key behind the request (a bearer token's or session's key included). */
  apiKeyId: string;
  /** The workspace's daily quota, read with the credential. */
  dailyQuota: number;
  /** How far the workspace's test clock is ahead of the server (ms; 0 but in a sandbox whose clock moved): the request's time is the server's plus this. */
  clockOffsetMs: number;
  /** Set when the key's rights came through a bearer token (POST /v1/token, or the operator's token): its id. */
  bearerTokenId?: string;
}

/** A workspace API key: the whole workspace. */
interface WorkspaceKeyPrincipal extends KeyBacked {
  kind: 'workspaceKey';
}

/** An app API key presented in X-API-KEY: the whole workspace, as that app. */
interface AppKeyPrincipal extends KeyBacked {
  kind: 'appKey';
  appId: string | null;
}

/** A bearer token from POST /v1/token: its app key's rights, bucket and quota. */
interface BearerPrincipal extends KeyBacked {
  kind: 'bearer';
  appId: string | null;
}

interface SessionBacked extends KeyBacked {
  appId: string | null;
  /** The session's tokenId. */
  sessionId: string;
}

/** Who an internal user is, in its session or signed in: `companyAccessList` null means every company. */
interface InternalUserIdentity {
  internalUserId: string;
  role: InternalUserRole;
  companyAccessList: readonly string[] | null;
}

/** Who a client is, in its session or signed in: the company it acts in, and every company it belongs to. */
interface ClientIdentity {
  clientId: string;
  /** The company the session is for. */
  companyId: string;
  /** Every company of the client. */
  clientCompanyIds: readonly string[];
}

/** An app acting for an internal user. */
export interface InternalUserSessionPrincipal extends SessionBacked, InternalUserIdentity {
  kind: 'internalUserSession';
}

/** An app acting for a client in one of its companies. */
export interface ClientSessionPrincipal extends SessionBacked, ClientIdentity {
  kind: 'clientSession';
}

/**
 * A person signed in to the portal (modules/surfaces/sign-in), calling the API with its cookie under
 * `/portal/{workspaceId}/v1`: itself, through no app and no key. Recorded as source `web`.
 */
interface PortalBacked {
  workspaceId: string;
  /** The sign-in session behind the cookie. */
  signInSessionId: string;
  /** The workspace's daily quota (a person's requests are exempt from it, as an app session's are; it is reported). */
  dailyQuota: number;
  clockOffsetMs: number;
  /** No app: what apps alone may do (their installs' settings, app events) is refused. */
  appId: null;
}

export interface PortalInternalUserPrincipal extends PortalBacked, InternalUserIdentity {
  kind: 'portalInternalUser';
}

export interface PortalClientPrincipal extends PortalBacked, ClientIdentity {
  kind: 'portalClient';
}

/** The `portal` command (and internal bookkeeping): the whole workspace, recorded as source `system`. */
interface SystemPrincipal {
  kind: 'system';
  workspaceId: string;
}

export type ApiPrincipal =
  | WorkspaceKeyPrincipal
  | AppKeyPrincipal
  | BearerPrincipal
  | InternalUserSessionPrincipal
  | ClientSessionPrincipal
  | PortalInternalUserPrincipal
  | PortalClientPrincipal;
/** A principal that is a key's (keys, bearer tokens, app sessions): what the limits and the idempotency store count by. */
export type KeyPrincipal = Exclude<ApiPrincipal, PortalInternalUserPrincipal | PortalClientPrincipal>;
export type Principal = ApiPrincipal | SystemPrincipal;

/**
 * What a caller may see, applied by every repository query (its first argument after the handle):
 * keys and bearer tokens see the whole workspace; an internal user limited to some companies sees
 * those and their clients; a client sees itself and its companies.
 */
export interface Access {
  workspaceId: string;
  /** null: every company; otherwise only these companies and their clients. */
  companyIds: readonly string[] | null;
  /** A client session: only this client (and `companyIds` are its companies). */
  clientId: string | null;
}

export type AuditSource = 'web' | 'platform' | 'automation' | 'system';
export type AuditActorType = 'internalUser' | 'clientUser';

/** Who made a change and from where: recorded with the change, in the same unit of work. */
export interface Actor {
  workspaceId: string;
  source: AuditSource;
  actorId: string | null;
  actorType: AuditActorType | null;
  actorRole: InternalUserRole | null;
  apiKeyRef: string | null;
  /** Company of the actor when the actor is a client user. */
  companyId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The request's time (ms): every row written by one request shares it. */
  at: number;
}

export interface Caller<P extends Principal = Principal> {
  readonly principal: P;
  readonly access: Access;
  readonly actor: Actor;
}

/** Where a request came from, for the audit actor. */
export interface Origin {
  ip: string | null;
  userAgent: string | null;
}

/** Full access to one workspace: keys, bearer tokens and the system. */
export function workspaceAccess(workspaceId: string): Access {
  return { workspaceId, companyIds: null, clientId: null };
}

/** A client, through an app's session or signed in to the portal. */
export const isClient = (principal: Principal): principal is ClientSessionPrincipal | PortalClientPrincipal =>
  principal.kind === 'clientSession' || principal.kind === 'portalClient';

/** An internal user, through an app's session or signed in to the portal. */
export const isInternalUser = (principal: Principal): principal is InternalUserSessionPrincipal | PortalInternalUserPrincipal =>
  principal.kind === 'internalUserSession' || principal.kind === 'portalInternalUser';

/** A person signed in to the portal, calling with its cookie. */
export const isPortalPerson = (principal: Principal): principal is PortalInternalUserPrincipal | PortalClientPrincipal =>
  principal.kind === 'portalInternalUser' || principal.kind === 'portalClient';

function accessOf(principal: Principal): Access {
  if (isClient(principal))
    return { workspaceId: principal.workspaceId, companyIds: principal.clientCompanyIds, clientId: principal.clientId };
  if (isInternalUser(principal)) return { workspaceId: principal.workspaceId, companyIds: principal.companyAccessList, clientId: null };
  return workspaceAccess(principal.workspaceId);
}

const sourceOf = (principal: Principal): AuditSource =>
  principal.kind === 'system' ? 'system' : isPortalPerson(principal) ? 'web' : 'platform';

function actorOf(principal: Principal, at: number, origin: Origin): Actor {
  const actor: Actor = {
    workspaceId: principal.workspaceId,
    source: sourceOf(principal),
    actorId: null,
    actorType: null,
    actorRole: null,
    apiKeyRef: principal.kind === 'system' || isPortalPerson(principal) ? null : principal.apiKeyId,
    companyId: null,
    ip: origin.ip,
    userAgent: origin.userAgent,
    at,
  };
  if (isInternalUser(principal)) {
    actor.actorId = principal.internalUserId;
    actor.actorType = 'internalUser';
    actor.actorRole = principal.role;
  } else if (isClient(principal)) {
    actor.actorId = principal.clientId;
    actor.actorType = 'clientUser';
    actor.companyId = principal.companyId;
  }
  return actor;
}

export function callerOf<P extends Principal>(principal: P, at: number, origin: Origin): Caller<P> {
  return { principal, access: accessOf(principal), actor: actorOf(principal, at, origin) };
}

/** The `portal` command acting on a workspace. */
export function systemCaller(workspaceId: string, at: number): Caller {
  return callerOf({ kind: 'system', workspaceId }, at, { ip: null, userAgent: null });
}

/** Identity of the burst bucket: the key (a bearer token's key too), or the person for a session or a signed-in person (one bucket for both). */
export function rateLimitKeyOf(principal: ApiPrincipal): string {
  if (isInternalUser(principal)) return `internalUser:${principal.internalUserId}`;
  if (isClient(principal)) return `client:${principal.clientId}`;
  return `key:${principal.apiKeyId}`;
}

/**
 * Whose stored `Idempotency-Key` answers a request may replay: the credential that made them. A key's
 * own requests; one bearer token's; a session's end user through that app key (a new session token of
 * the same user finds its retries); one portal sign-in's. Never shared between two principals
 * (test/idempotency-scope.test.ts).
 */
export function idempotencyScopeOf(principal: ApiPrincipal): string {
  if (isPortalPerson(principal)) return `signIn:${principal.signInSessionId}`;
  if (principal.kind === 'internalUserSession') return `key:${principal.apiKeyId}/internalUser:${principal.internalUserId}`;
  if (principal.kind === 'clientSession') return `key:${principal.apiKeyId}/client:${principal.clientId}/${principal.companyId}`;
  if (principal.bearerTokenId !== undefined) return `token:${principal.bearerTokenId}`;
  return `key:${principal.apiKeyId}`;
}

/** Requests for a person (an app's session, or the person signed in) are exempt from the daily quota (contract §6). */
export const isQuotaExempt = (
  principal: ApiPrincipal,
): principal is Exclude<ApiPrincipal, { kind: 'workspaceKey' | 'appKey' | 'bearer' }> => isClient(principal) || isInternalUser(principal);

/** A person's own user: a client, in the company it acts in, or an internal user. */
export type OwnUser = { type: 'client'; id: string; companyId: string } | { type: 'internalUser'; id: string };

/**
 * Who acts, one rule for every service (docs/api.md, "who acts"): a person — an app's session, or signed in to
 * the portal — acts as its own user, read from the caller's actor; keys, bearer tokens and the system have none
 * (they act for their app's users, or for the workspace).
 */
export function ownUserOf(caller: Caller): OwnUser | undefined {
  const { actorType, actorId, companyId } = caller.actor;
  if (actorId === null || actorType === null) return undefined;
  if (actorType === 'internalUser') return { type: 'internalUser', id: actorId };
  if (companyId === null) throw new Error('A client actor without the company it acts in');
  return { type: 'client', id: actorId, companyId };
}

/** Whether `named` (a lower-case id, or nothing) leaves a person acting as itself: anyone for a key, a token or the system. */
export function namesItself(caller: Caller, named: string | undefined): boolean {
  const own = ownUserOf(caller);
  return own === undefined || named === undefined || named === own.id;
}

/**
 * Wherever a request names an actor (a sender, an author, a signer, an assignee), a person may name only
 * itself: another is a 403 naming the field, before anything is read or written.
 */
export function assertNamesItself(caller: Caller, field: string, named: string | undefined): void {
  if (!namesItself(caller, named))
    throw errors.forbidden(`${field} must be the caller’s own user (or left out): a person acts only as itself.`);
}

/** The principal of a /v1 request: the auth plugin sets only API principals (the system acts on /admin and in the CLI). */
export function apiPrincipalOf(caller: Caller): ApiPrincipal {
  const { principal } = caller;
  if (principal.kind === 'system') throw new Error('A system caller on a /v1 route');
  return principal;
}
