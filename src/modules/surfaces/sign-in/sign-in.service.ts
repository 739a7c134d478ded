import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../../audit/index.js';
import type { AuditEventType } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import type { SignInLinkPurpose, SignInMethod } from '../../../db/schema.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import {
  type Access,
  type Actor,
  type Origin,
  type PortalClientPrincipal,
  type PortalInternalUserPrincipal,
  workspaceAccess,
} from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { type ApiError, errors, orNotFound } from '../../../lib/errors.js';
import { hashSecretToken, newSecretToken } from '../../../lib/secret-token.js';
import { SIGN_IN_IDLE_MS, SIGN_IN_LIFETIME_MS, mustStepDown } from '../../../lib/sign-in-sessions.js';
import { generateRecoveryCodes, generateTotpSecret, hashRecoveryCode, otpauthUri, verifyTotp } from '../../../lib/totp.js';
import type { AuthFailureLimiter } from '../../../limits/auth-failures.js';
import type { LimitStore } from '../../../limits/limit-store.js';
import { queueEmails } from '../../resources/email-outbox/index.js';
import { findWorkspace, logoImage, portalLogo } from '../../resources/workspaces/index.js';
import { hashPassword, passwordMatches } from './passwords.js';
import * as repo from './sign-in.repository.js';
import type { Person, StoredSession, UserType } from './sign-in.repository.js';
import { findInvitee, findPerson, findPersonByEmail, recordSignIn } from './sign-in.people.js';

/** What signing in needs of the app: built once by the routes. */
export interface SignInSettings {
  database: Database;
  limitStore: LimitStore;
  authFailures: AuthFailureLimiter;
  /** Base of the links e-mailed (PORTAL_URL). */
  portalUrl: string;
}

/** One request's time and origin: every event it records carries them. */
export interface Attempt extends Origin {
  workspaceId: string;
  at: number;
}

/** Sign-in's access: the workspace of the person, or of the request's portal. */
const inWorkspace = (of: { workspaceId: string }) => workspaceAccess(of.workspaceId);

/** Whether the workspace requires TOTP of its internal users; undefined when there is no such workspace. */
async function staffMfaRequired(db: Database['db'], workspaceId: string): Promise<boolean | undefined> {
  return (await findWorkspace(db, workspaceAccess(workspaceId)))?.staffMfaRequired;
}

/**
 * What a portal shows of its workspace before anyone signs in, as its documents do: the name, the brand colour or
 * the one derived from the id, and the logo if it has one (the workspace's existence was checked by the route's plugin).
 */
export async function portalWorkspace(database: Database, workspaceId: string) {
  const [found, logo] = await Promise.all([findWorkspace(database.db, workspaceAccess(workspaceId)), portalLogo(database, workspaceId)]);
  const workspace = orNotFound(found, 'Workspace');
  return {
    object: 'portalWorkspace' as const,
    id: workspace.id,
    name: workspace.name,
    brandColor: workspace.brandColor ?? fallbackColorFor(workspace.id),
    ...(logo ? { logoUrl: logo.path, logoWidth: logo.width, logoHeight: logo.height } : {}),
  };
}

/** The workspace's logo's bytes, while `hash` names its logo (404 for an older one, or another workspace's). */
export async function portalLogoImage(database: Database, workspaceId: string, hash: string) {
  return orNotFound(await logoImage(database, workspaceId, hash), 'Logo');
}

const MINUTE = 60_000;
/** Between the first factor and the TOTP step (or enrolling one, where the workspace requires it). */
const MFA_STAGE_MS = 10 * MINUTE;
const LINK_LIFETIME_MS = { signIn: 15 * MINUTE, passwordReset: 30 * MINUTE } as const;
/** A session's last request is written at most this often (idleness is measured in minutes). */
const TOUCH_EVERY_MS = MINUTE;

/**
 * Guesses of a secret, per bucket: 10, then one more every 90 s. A guess takes its token before it is evaluated (one
 * atomic step of the limit store), so a burst evaluates at most the tokens left; a right guess gives its token back,
 * so the owner's own sign-ins never use the bucket up. Each step has its own bucket, and only the password's can be
 * drained by a stranger, so a stranger's guesses never lock the owner out of any step:
 * - `password`: per account (e-mail, known or not, so the limit tells nothing either); links by e-mail still sign the
 *   owner in;
 * - `secondFactor` (TOTP and recovery codes): per person, drained only by whoever passed the first factor;
 * - `passwordChange` (the current password): per person, drained only by a signed-in session.
 */
const GUESSES = { capacity: 10, perSecond: 10 / 900 };
type GuessStep = 'password' | 'secondFactor' | 'passwordChange';
/** E-mails one address can be sent (links and resets): 5, then one more every 12 minutes; past it, silently none. */
const MAILS = { capacity: 5, perSecond: 5 / 3600 };

type SessionStage = 'active' | 'mfaRequired' | 'mfaEnrolmentRequired';

/** A signed-in (or half signed-in) person, as a request finds it from its cookie. */
export interface ActiveSession {
  id: string;
  person: Person;
  method: SignInMethod;
  stage: SessionStage;
  createdAt: string;
  expiresAt: string;
  mfaEnabled: boolean;
}

/** A session just opened: the cookie's value (once, never stored) and the session. */
export interface Opened {
  token: string;
  session: ActiveSession;
}

function actorOf(person: Person | undefined, attempt: Attempt): Actor {
  return {
    workspaceId: attempt.workspaceId,
    source: 'web',
    actorId: person?.id ?? null,
    actorType: person ? (person.type === 'client' ? 'clientUser' : 'internalUser') : null,
    actorRole: person?.role ?? null,
    apiKeyRef: null,
    companyId: person?.companyId ?? null,
    ip: attempt.ip,
    userAgent: attempt.userAgent,
    at: attempt.at,
  };
}

const personSubject = (person: Person) => ({
  object: person.type === 'client' ? 'client' : 'internalUser',
  id: person.id,
  data: { id: person.id, email: person.email, givenName: person.givenName, familyName: person.familyName },
  companyId: person.companyId,
});

function record(
  work: UnitOfWork,
  person: Person | undefined,
  attempt: Attempt,
  eventType: AuditEventType,
  description: string,
  context = {},
) {
  recordAudit(work, actorOf(person, attempt), {
    eventType,
    description,
    context: { userType: person?.type ?? null, ...context },
    ...(person ? { subject: personSubject(person) } : {}),
  });
}

const wrongCredentials = () => errors.unauthorized('Wrong e-mail or password.');

/** Who may sign in at all: internal users, and clients once invited (an uninvited client has no portal yet). */
const maySignIn = (person: Person | undefined): person is Person =>
  person !== undefined && (person.type === 'internalUser' || person.status === 'invited' || person.status === 'active');

function bucketKey(kind: string, workspaceId: string, type: UserType, email: string) {
  return `signin:${kind}:${workspaceId}:${type}:${email.trim().toLowerCase()}`;
}

/** A failed attempt, counted against the client address's tries: the error to throw (429 once it is out of them). */
function refusal(settings: SignInSettings, attempt: Attempt, error: ApiError): Promise<ApiError> {
  return settings.authFailures.fail(attempt.ip ?? 'unknown', attempt.at, error);
}

/** A step's guess bucket: the password's by e-mail (the account may not exist), the others by person. */
function guessKey(step: GuessStep, workspaceId: string, type: UserType, emailOrId: string) {
  // 'guess' is the password's key since before the other steps had buckets of their own.
  return step === 'password' ? bucketKey('guess', workspaceId, type, emailOrId) : `signin:${step}:${workspaceId}:${type}:${emailOrId}`;
}

/** Takes a guess's token before the guess is evaluated (429 when none is left); the bucket's key, for `rightGuess`. */
async function takeGuess(settings: SignInSettings, attempt: Attempt, key: string): Promise<string> {
  const { allowed } = await settings.limitStore.bucket(key, GUESSES.capacity, GUESSES.perSecond, attempt.at, true);
  if (!allowed) throw errors.rateLimited(Math.ceil(1 / GUESSES.perSecond));
  return key;
}

/**
 * Gives a right guess's token back (or one that was no guess: the step refused for another reason). Best effort: the
 * sign-in has happened, and a token not given back (the limit store unreachable) only costs the owner one guess.
 */
async function rightGuess(settings: SignInSettings, key: string, attempt: Attempt): Promise<void> {
  await settings.limitStore.refund(key, GUESSES.capacity, GUESSES.perSecond, attempt.at).catch(() => {});
}

/** A wrong guess (its token stays taken), counted against the client address's tries too: the error to throw. */
function wrongGuess(settings: SignInSettings, attempt: Attempt, error: ApiError): Promise<ApiError> {
  return refusal(settings, attempt, error);
}

/**
 * Opens a session in `work` after a first factor passed: active, or at the TOTP step when the person has TOTP
 * on or is staff of a workspace that requires it. Always a new token (no session is ever carried over a sign-in).
 */
async function openSession(
  settings: SignInSettings,
  work: UnitOfWork,
  person: Person,
  method: SignInMethod,
  attempt: Attempt,
): Promise<Opened> {
  const credentials = await repo.findCredentials(work.db, inWorkspace(person), person);
  const mfaEnabled = Boolean(credentials?.totpEnabledAt);
  const mfaRequired = person.type === 'internalUser' && (await staffMfaRequired(work.db, person.workspaceId)) === true;
  const stage: SessionStage = mfaEnabled ? 'mfaRequired' : mfaRequired ? 'mfaEnrolmentRequired' : 'active';
  record(work, person, attempt, 'userLoginSucceeded', `${person.email} passed the first factor (${method})`, { method });
  return startSession(work, person, method, stage, mfaEnabled, attempt);
}

function startSession(
  work: UnitOfWork,
  person: Person,
  method: SignInMethod,
  stage: SessionStage,
  mfaEnabled: boolean,
  attempt: Attempt,
): Opened {
  const { token, hash } = newSecretToken();
  const id = randomUUID();
  const createdAt = isoAt(attempt.at);
  const expiresAt = isoAt(attempt.at + (stage === 'active' ? SIGN_IN_LIFETIME_MS : MFA_STAGE_MS));
  repo.insertSession(work, inWorkspace(person), {
    id,
    person,
    tokenHash: hash,
    method,
    stage: stage === 'active' ? 'active' : 'mfa',
    ip: attempt.ip,
    userAgent: attempt.userAgent,
    createdAt,
    expiresAt,
    secondFactor: stage === 'active' && mfaEnabled, // an active session with TOTP on passed it (openSession stops at the step)
  });
  if (stage === 'active') signedIn(work, person, method, attempt);
  return { token, session: { id, person, method, stage, createdAt, expiresAt, mfaEnabled } };
}

/** userLoggedIn, and a client's login dates (its first sign-in makes it active: clientActivated). */
function signedIn(work: UnitOfWork, person: Person, method: SignInMethod, attempt: Attempt): void {
  record(work, person, attempt, 'userLoggedIn', `${person.email} signed in (${method})`, { method });
  recordSignIn(work, inWorkspace(person), person, isoAt(attempt.at), (first) => {
    if (first) record(work, person, attempt, 'clientActivated', `Client ${person.email} activated`, { clientId: person.id });
  });
}

// ---- password ------------------------------------------------------------------------------------------------

export async function signInWithPassword(
  settings: SignInSettings,
  input: { email: string; password: string; userType: UserType },
  attempt: Attempt,
): Promise<Opened> {
  const guesses = await takeGuess(settings, attempt, guessKey('password', attempt.workspaceId, input.userType, input.email));
  const found = await findPersonByEmail(settings.database.db, inWorkspace(attempt), input.userType, input.email);
  const person = maySignIn(found) ? found : undefined;
  const credentials = person ? await repo.findCredentials(settings.database.db, inWorkspace(person), person) : undefined;
  // Always one Argon2 check (against a decoy without a password), so the time tells nothing of the account.
  const ok = await passwordMatches(credentials?.passwordHash ?? null, input.password);
  if (!person || !ok) {
    await unitOfWork(settings.database, async (work) =>
      record(work, person, attempt, 'userLoginFailed', `Failed sign-in${person ? ` of ${person.email}` : ''} (password)`, {
        method: 'password',
        reason: person ? 'wrongPassword' : 'unknownAccount',
      }),
    );
    throw await wrongGuess(settings, attempt, wrongCredentials());
  }
  const opened = await unitOfWork(settings.database, (work) => openSession(settings, work, person, 'password', attempt), {
    transaction: true,
  });
  await rightGuess(settings, guesses, attempt);
  return opened;
}

// ---- links by e-mail -----------------------------------------------------------------------------------------

/** Whether one more e-mail may go to this address now (silently none past the limit: the answer never differs). */
async function mayMail(settings: SignInSettings, attempt: Attempt, type: UserType, email: string): Promise<boolean> {
  const result = await settings.limitStore.bucket(
    bucketKey('mail', attempt.workspaceId, type, email),
    MAILS.capacity,
    MAILS.perSecond,
    attempt.at,
    true,
  );
  return result.allowed;
}

function linkUrl(settings: SignInSettings, workspaceId: string, page: string, token: string) {
  // In the fragment: a browser sends it to no server, log or Referer; the page posts it.
  return `${settings.portalUrl}/portal/${workspaceId}/${page}#${token}`;
}

/** What each kind of e-mailed link says, and the page it opens. */
const LINK_MAILS = {
  signIn: {
    page: 'magic-link',
    subject: 'Your sign-in link',
    text: (name: string, url: string) =>
      `Hello ${name},\n\nSign in with this link within 15 minutes (it works once):\n\n${url}\n\nIf you did not ask for it, ignore this e-mail.\n`,
  },
  passwordReset: {
    page: 'reset-password',
    subject: 'Reset your password',
    text: (name: string, url: string) =>
      `Hello ${name},\n\nChoose a new password with this link within 30 minutes (it works once):\n\n${url}\n\nIf you did not ask for it, ignore this e-mail: your password stays as it is.\n`,
  },
} as const;

/**
 * E-mails a link of `purpose` to the person with this e-mail, if there is one who may sign in; the answer is the
 * same either way (no enumeration). Single use, short-lived (15 minutes to sign in, 30 to reset a password), stored
 * as its SHA-256, good for its own purpose only (a sign-in link never sets a password); a new one replaces an unused one.
 * A sign-in link records magicLinkSent. The routes run this after answering (its time would tell whether the address
 * may sign in).
 */
export async function sendLink(
  settings: SignInSettings,
  purpose: SignInLinkPurpose,
  input: { email: string; userType: UserType },
  attempt: Attempt,
): Promise<void> {
  const person = await findPersonByEmail(settings.database.db, inWorkspace(attempt), input.userType, input.email);
  if (!maySignIn(person) || !(await mayMail(settings, attempt, input.userType, input.email))) return;
  const { token, hash } = newSecretToken();
  const mail = LINK_MAILS[purpose];
  await unitOfWork(settings.database, async (work) => {
    repo.deleteLinksOf(work, inWorkspace(person), person, purpose);
    repo.insertLink(work, inWorkspace(person), {
      id: randomUUID(),
      person,
      tokenHash: hash,
      purpose,
      createdAt: isoAt(attempt.at),
      expiresAt: isoAt(attempt.at + LINK_LIFETIME_MS[purpose]),
    });
    const to = {
      notificationId: null,
      to: person.email,
      subject: mail.subject,
      text: mail.text(person.givenName, linkUrl(settings, attempt.workspaceId, mail.page, token)),
    };
    queueEmails(work, inWorkspace(attempt), [to], isoAt(attempt.at));
    if (purpose === 'signIn') record(work, person, attempt, 'magicLinkSent', `Sign-in link sent to ${person.email}`, {});
  });
}

/**
 * A link's person, if `token` is an unexpired, unused link of this purpose, and uses it in `work` (exactly once,
 * even when two requests race). Anything else is the same 401, counted against the address's tries.
 */
async function redeemLink(
  settings: SignInSettings,
  work: UnitOfWork,
  token: string,
  purpose: SignInLinkPurpose,
  attempt: Attempt,
): Promise<Person> {
  const { link, person } = await validLink(settings, work.db, token, purpose, attempt);
  repo.useLink(work, inWorkspace(attempt), link.id, isoAt(attempt.at), (used) => {
    if (!used) throw errors.unauthorized('This link has already been used.');
  });
  return person;
}

async function validLink(settings: SignInSettings, db: Database['db'], token: string, purpose: SignInLinkPurpose, attempt: Attempt) {
  const refused = () =>
    refusal(settings, attempt, errors.unauthorized('This link is not valid: it has expired, been used, or been replaced by a newer one.'));
  const link = await repo.findLink(db, inWorkspace(attempt), hashSecretToken(token));
  if (!link || link.purpose !== purpose || link.usedAt !== null || Date.parse(link.expiresAt) <= attempt.at) throw await refused();
  const person = await findPerson(db, inWorkspace(attempt), link.person);
  if (!maySignIn(person)) throw await refused();
  return { link, person };
}

export async function redeemMagicLink(settings: SignInSettings, token: string, attempt: Attempt): Promise<Opened> {
  return unitOfWork(
    settings.database,
    async (work) => openSession(settings, work, await redeemLink(settings, work, token, 'signIn', attempt), 'magicLink', attempt),
    { transaction: true },
  );
}

/** Sets a new password from a reset link: every session and other link of the person ends (passwordReset); nobody is signed in. */
export async function completePasswordReset(
  settings: SignInSettings,
  input: { token: string; password: string },
  attempt: Attempt,
): Promise<void> {
  await validLink(settings, settings.database.db, input.token, 'passwordReset', attempt); // before the costly hash
  const hash = await hashPassword(input.password);
  await unitOfWork(
    settings.database,
    async (work) => {
      const person = await redeemLink(settings, work, input.token, 'passwordReset', attempt);
      const at = isoAt(attempt.at);
      repo.saveCredentials(work, inWorkspace(person), person, randomUUID(), { passwordHash: hash, passwordChangedAt: at }, at);
      repo.revokeSessionsOf(work, inWorkspace(person), person, at);
      repo.deleteLinksOf(work, inWorkspace(person), person); // every other link sent before: the password they were sent under is gone
      record(work, person, attempt, 'passwordReset', `${person.email} reset their password`, {});
    },
    { transaction: true },
  );
}

// ---- invites -------------------------------------------------------------------------------------------------

/** How long a new internal user's invite works: as long as a client's. */
const STAFF_INVITE_MS = 7 * 24 * 60 * MINUTE;

/**
 * Invites a new internal user (modules/workflows/staff, `POST /v1/internal-users?sendInvite=true`), in the unit that
 * creates it: an e-mail with a link to choose a password. The link is a password-reset link (the `reset-password` page
 * sets the password with it: used once, replaced by a newer one, every other link and session of the person ended when
 * it is used: passwordReset), valid for 7 days instead of 30 minutes. Its URL is answered to nobody: whoever invited
 * could otherwise choose the new person's password. The person may sign in by an e-mailed link meanwhile, as any
 * internal user.
 */
export async function inviteInternalUser(
  work: UnitOfWork,
  access: Access,
  user: { id: string; email: string; givenName: string },
  at: number,
  portalUrl: string,
): Promise<void> {
  const workspace = orNotFound(await findWorkspace(work.db, access), 'Workspace');
  const person = { type: 'internalUser' as const, id: user.id };
  const { token, hash } = newSecretToken();
  const expiresAt = isoAt(at + STAFF_INVITE_MS);
  repo.deleteLinksOf(work, access, person, 'passwordReset');
  repo.insertLink(work, access, { id: randomUUID(), person, tokenHash: hash, purpose: 'passwordReset', createdAt: isoAt(at), expiresAt });
  const url = `${portalUrl}/portal/${access.workspaceId}/${LINK_MAILS.passwordReset.page}#${token}`;
  const mail = {
    notificationId: null,
    to: user.email,
    subject: `You are invited to ${workspace.name}`,
    text:
      `Hello ${user.givenName},\n\nYou have been added to the team of ${workspace.name}. Choose your password with this link ` +
      `(it works once, until ${expiresAt}):\n\n${url}\n\nThen sign in at ${portalUrl}/portal/${access.workspaceId}/sign-in.\n`,
  };
  queueEmails(work, access, [mail], isoAt(at));
}

/**
 * Accepts a client's invite (its link's token): with a password, that becomes the client's; without, the
 * link alone signs it in (as a magic link would). The first sign-in makes the client active (clientActivated).
 */
export async function acceptInvite(
  settings: SignInSettings,
  input: { token: string; password?: string },
  attempt: Attempt,
): Promise<Opened> {
  await validInvite(settings, settings.database.db, input.token, attempt); // before the costly hash
  const hash = input.password === undefined ? undefined : await hashPassword(input.password);
  return unitOfWork(
    settings.database,
    async (work) => {
      const invite = await validInvite(settings, work.db, input.token, attempt, settings.database.dialect);
      const at = isoAt(attempt.at);
      if (hash)
        repo.saveCredentials(
          work,
          inWorkspace(invite.person),
          invite.person,
          randomUUID(),
          { passwordHash: hash, passwordChangedAt: at },
          at,
        );
      return openSession(settings, work, invite.person, 'invite', attempt);
    },
    { transaction: true },
  );
}

/** The invite of `token` while it is valid (with `lockFor`, its row locked for the transaction: accepted once). */
async function validInvite(settings: SignInSettings, db: Database['db'], token: string, attempt: Attempt, lockFor?: 'sqlite' | 'postgres') {
  const invite = await findInvitee(db, inWorkspace(attempt), hashSecretToken(token), lockFor);
  if (!invite || invite.person.status !== 'invited' || invite.expiresAt === null || Date.parse(invite.expiresAt) <= attempt.at) {
    throw await refusal(
      settings,
      attempt,
      errors.unauthorized('This invite is not valid: it has expired, been accepted, or been replaced by a newer one. Ask for a new one.'),
    );
  }
  return invite;
}

// ---- the session ---------------------------------------------------------------------------------------------

/**
 * The session a cookie opens in this workspace, or undefined (unknown, revoked, expired, idle too long, or its
 * person removed: a removed person's rows go with it, so every process refuses the cookie on its next request).
 * A staff session that passed no second factor, in a workspace that has required TOTP since it opened, is stepped
 * down: it answers at the TOTP step (to pass or enrol one) as a fresh sign-in would, and reaches nothing else.
 */
export async function findSession(
  settings: SignInSettings,
  workspaceId: string,
  token: string,
  at: number,
): Promise<ActiveSession | undefined> {
  const access = workspaceAccess(workspaceId);
  return sessionOf(settings.database, await repo.findSession(settings.database.db, access, { tokenHash: hashSecretToken(token) }), at);
}

/**
 * The session of this id, as `findSession` finds it from its cookie: for the OpenID callback of a link started by
 * that session, which the cookie (scoped to the workspace's portal) does not reach; the id comes sealed from the start.
 */
export async function findSessionById(
  settings: SignInSettings,
  workspaceId: string,
  id: string,
  at: number,
): Promise<ActiveSession | undefined> {
  return sessionOf(settings.database, await repo.findSession(settings.database.db, workspaceAccess(workspaceId), { id }), at);
}

/**
 * What a route of the sign-in API needs (plugins/portal-sign-in.ts): the workspace first (404), then, for a route
 * that takes one (`needs`), the session its cookie opens (401; 403 while a second factor is due, unless the route
 * takes a session at the TOTP step too: `any`). Undefined for a route that needs none.
 */
export async function sessionForRoute(
  database: Database,
  workspaceId: string,
  token: string | undefined,
  at: number,
  needs: 'active' | 'any' | undefined,
): Promise<ActiveSession | undefined> {
  if ((await staffMfaRequired(database.db, workspaceId)) === undefined) throw errors.notFound('Workspace');
  if (!needs) return undefined;
  const stored = token
    ? await repo.findSession(database.db, workspaceAccess(workspaceId), { tokenHash: hashSecretToken(token) })
    : undefined;
  const session = await sessionOf(database, stored, at);
  if (!session) throw errors.unauthorized('Not signed in, or the session has ended: sign in again.');
  if (needs === 'active' && session.stage !== 'active') throw errors.forbidden('Finish signing in first (the TOTP step).');
  return session;
}

async function sessionOf(database: Database, stored: StoredSession | undefined, at: number): Promise<ActiveSession | undefined> {
  if (!stored || Date.parse(stored.expiresAt) <= at || Date.parse(stored.lastSeenAt) + SIGN_IN_IDLE_MS <= at) return undefined;
  const { person, totpEnabled: mfaEnabled } = stored;
  if (!maySignIn(person)) return undefined;
  if (Date.parse(stored.lastSeenAt) + TOUCH_EVERY_MS <= at) await repo.touchSession(database.db, inWorkspace(person), stored.id, isoAt(at));
  const steppedDown = mustStepDown({
    internalUser: person.type === 'internalUser',
    staffMfaRequired: stored.staffMfaRequired,
    secondFactor: stored.secondFactor,
  });
  const stage: SessionStage = stored.stage === 'active' && !steppedDown ? 'active' : mfaEnabled ? 'mfaRequired' : 'mfaEnrolmentRequired';
  return { id: stored.id, person, method: stored.method, stage, createdAt: stored.createdAt, expiresAt: stored.expiresAt, mfaEnabled };
}

/**
 * The person behind a portal cookie as a caller of the /v1 API (plugins/auth.ts): only a session past its TOTP step,
 * with what the person sees (a client its companies, acting in its own company; an internal user its role and company
 * limits); undefined when there is none. The session's idleness is measured on the server's clock (`at`).
 */
export async function signedInPrincipal(
  database: Database,
  workspaceId: string,
  token: string,
  at: number,
): Promise<PortalClientPrincipal | PortalInternalUserPrincipal | undefined> {
  const row = await repo.findSession(database.db, workspaceAccess(workspaceId), { tokenHash: hashSecretToken(token) });
  const session = await sessionOf(database, row, at);
  if (!row || session?.stage !== 'active') return undefined;
  const { person } = session;
  const base = { workspaceId, signInSessionId: session.id, dailyQuota: row.dailyQuota, clockOffsetMs: row.clockOffsetMs, appId: null };
  if (person.type === 'internalUser' && person.role !== null)
    return { ...base, kind: 'portalInternalUser', internalUserId: person.id, role: person.role, companyAccessList: row.companyIds };
  if (person.type === 'client' && person.companyId !== null && row.companyIds?.includes(person.companyId))
    return { ...base, kind: 'portalClient', clientId: person.id, companyId: person.companyId, clientCompanyIds: row.companyIds };
  return undefined;
}

export async function signOut(settings: SignInSettings, session: ActiveSession, attempt: Attempt): Promise<void> {
  await unitOfWork(settings.database, async (work) => {
    repo.revokeSession(work, inWorkspace(session.person), session.id, isoAt(attempt.at));
    if (session.stage === 'active') record(work, session.person, attempt, 'userLoggedOut', `${session.person.email} signed out`, {});
  });
}

/**
 * Changes the password of the signed-in person. When one is set, the current one is required, whatever opened the
 * session: a session from an old or forwarded sign-in link can never take the account over (Invoice Ninja #6408).
 * The person's other sessions, and every link e-mailed before, end.
 */
export async function changePassword(
  settings: SignInSettings,
  session: ActiveSession,
  input: { currentPassword?: string; newPassword: string },
  attempt: Attempt,
): Promise<void> {
  const { person } = session;
  const credentials = await repo.findCredentials(settings.database.db, inWorkspace(person), person);
  if (credentials?.passwordHash) {
    if (input.currentPassword === undefined) throw errors.invalidField('body.currentPassword', 'is required to change a password');
    const guesses = await takeGuess(settings, attempt, guessKey('passwordChange', person.workspaceId, person.type, person.id));
    if (!(await passwordMatches(credentials.passwordHash, input.currentPassword))) {
      await unitOfWork(settings.database, async (work) =>
        record(work, person, attempt, 'userLoginFailed', `Wrong current password of ${person.email}`, {
          method: 'passwordChange',
          reason: 'wrongPassword',
        }),
      );
      throw await wrongGuess(settings, attempt, errors.invalidField('body.currentPassword', 'is not your current password'));
    }
    await rightGuess(settings, guesses, attempt);
  }
  const hash = await hashPassword(input.newPassword);
  await unitOfWork(settings.database, async (work) => {
    const at = isoAt(attempt.at);
    repo.saveCredentials(work, inWorkspace(person), person, randomUUID(), { passwordHash: hash, passwordChangedAt: at }, at);
    repo.revokeSessionsOf(work, inWorkspace(person), person, at, session.id);
    repo.deleteLinksOf(work, inWorkspace(person), person); // links sent before the change end with the password they were sent under
    record(work, person, attempt, 'passwordChanged', `${person.email} changed their password`, {});
  });
}

// ---- TOTP ----------------------------------------------------------------------------------------------------

const RECOVERY_CODES = 10;

/**
 * The TOTP step of a sign-in: a code of the authenticator (each accepted once) or an unused recovery code. Passed,
 * the half session ends and a new, active one opens (a new token: the cookie of the first step opens nothing).
 */
export async function verifySecondFactor(
  settings: SignInSettings,
  session: ActiveSession,
  code: string,
  attempt: Attempt,
): Promise<Opened> {
  if (session.stage !== 'mfaRequired') throw errors.conflict('This session is not waiting for a TOTP code.');
  const { person } = session;
  const guesses = await takeGuess(settings, attempt, guessKey('secondFactor', person.workspaceId, person.type, person.id));
  const opened = await unitOfWork(
    settings.database,
    async (work) => {
      // Locked: of requests sending one code at once, the next reads it used (each code, recovery codes too, works once).
      const credentials = await repo.findCredentials(work.db, inWorkspace(person), person, settings.database.dialect);
      if (!credentials?.totpSecret || !credentials.totpEnabledAt) throw errors.conflict('TOTP is not enabled for this account.');
      const at = isoAt(attempt.at);
      const step = verifyTotp(credentials.totpSecret, code.trim(), attempt.at, { lastUsedStep: credentials.totpLastStep });
      if (step !== undefined) {
        repo.saveCredentials(work, inWorkspace(person), person, credentials.id, { totpLastStep: step }, at);
      } else {
        const unused = credentials.recoveryCodeHashes;
        const left = unused.filter((hash) => hash !== hashRecoveryCode(code));
        if (left.length === unused.length) return undefined;
        repo.saveCredentials(work, inWorkspace(person), person, credentials.id, { recoveryCodeHashes: left }, at);
      }
      // One half session opens one session, even with two different right codes at once.
      repo.endSessionOnce(work, inWorkspace(person), session.id, at, (ended) => {
        if (!ended) throw errors.unauthorized('This sign-in has already passed its TOTP step; sign in again.');
      });
      return startSession(work, person, session.method, 'active', true, attempt);
    },
    { transaction: true },
  ).catch(async (error) => {
    await rightGuess(settings, guesses, attempt); // refused for another reason than a wrong code: no guess spent
    throw error;
  });
  if (opened) {
    await rightGuess(settings, guesses, attempt);
    return opened;
  }
  await unitOfWork(settings.database, async (work) =>
    record(work, person, attempt, 'userLoginFailed', `Wrong TOTP code for ${person.email}`, { method: 'totp', reason: 'wrongCode' }),
  );
  throw await wrongGuess(settings, attempt, errors.unauthorized('Wrong code.'));
}

/** Starts enrolling an authenticator: a new secret (not in force until a code from it is confirmed). */
export async function beginTotpEnrolment(settings: SignInSettings, session: ActiveSession, issuer: string, attempt: Attempt) {
  if (session.stage === 'mfaRequired') throw errors.forbidden('Finish signing in first.');
  if (session.mfaEnabled) throw errors.conflict('TOTP is already enabled: disable it first to enrol another authenticator.');
  const secret = generateTotpSecret();
  await unitOfWork(settings.database, async (work) =>
    repo.saveCredentials(
      work,
      inWorkspace(session.person),
      session.person,
      randomUUID(),
      { totpSecret: secret, totpEnabledAt: null, totpLastStep: null },
      isoAt(attempt.at),
    ),
  );
  return { secret, otpauthUri: otpauthUri({ secret, issuer, accountName: session.person.email }) };
}

/**
 * Confirms enrolment with a code from the new authenticator: TOTP is on, and the ten recovery codes are answered
 * (once; stored as hashes). A session that had to enrol (the workspace requires it) becomes a new, active one.
 */
export async function confirmTotpEnrolment(
  settings: SignInSettings,
  session: ActiveSession,
  code: string,
  attempt: Attempt,
): Promise<{ recoveryCodes: string[]; opened?: Opened }> {
  if (session.stage === 'mfaRequired') throw errors.forbidden('Finish signing in first.');
  const { person } = session;
  const recoveryCodes = generateRecoveryCodes(RECOVERY_CODES);
  return unitOfWork(
    settings.database,
    async (work) => {
      const credentials = await repo.findCredentials(work.db, inWorkspace(person), person);
      if (!credentials?.totpSecret || credentials.totpEnabledAt) throw errors.conflict('Start an enrolment first (POST …/mfa/totp).');
      const step = verifyTotp(credentials.totpSecret, code.trim(), attempt.at, { lastUsedStep: credentials.totpLastStep });
      if (step === undefined) throw errors.invalidField('body.code', 'is not the current code of the authenticator being enrolled');
      const at = isoAt(attempt.at);
      repo.saveCredentials(
        work,
        inWorkspace(person),
        person,
        credentials.id,
        { totpEnabledAt: at, totpLastStep: step, recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode) },
        at,
      );
      if (session.stage !== 'mfaEnrolmentRequired') return { recoveryCodes };
      repo.revokeSession(work, inWorkspace(person), session.id, at);
      return { recoveryCodes, opened: startSession(work, person, session.method, 'active', true, attempt) };
    },
    { transaction: true },
  );
}

/** Turns TOTP off (a current code required); staff of a workspace that requires it may not (409). */
export async function disableTotp(settings: SignInSettings, session: ActiveSession, code: string, attempt: Attempt): Promise<void> {
  if (session.stage !== 'active') throw errors.forbidden('Finish signing in first.');
  const { person } = session;
  if (person.type === 'internalUser' && (await staffMfaRequired(settings.database.db, person.workspaceId)))
    throw errors.conflict('This workspace requires TOTP for its internal users: it cannot be turned off.');
  await unitOfWork(
    settings.database,
    async (work) => {
      const credentials = await repo.findCredentials(work.db, inWorkspace(person), person);
      if (!credentials?.totpEnabledAt || !credentials.totpSecret) throw errors.conflict('TOTP is not enabled.');
      if (verifyTotp(credentials.totpSecret, code.trim(), attempt.at, { lastUsedStep: credentials.totpLastStep }) === undefined)
        throw errors.invalidField('body.code', 'is not the current code of your authenticator');
      repo.saveCredentials(
        work,
        inWorkspace(person),
        person,
        credentials.id,
        { totpSecret: null, totpEnabledAt: null, totpLastStep: null, recoveryCodeHashes: null },
        isoAt(attempt.at),
      );
    },
    { transaction: true },
  );
}

// ---- OpenID providers ----------------------------------------------------------------------------------------

/** What a provider vouched for, on its way back. */
export interface VouchedIdentity {
  provider: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  userType: UserType;
}

/**
 * Signs in the person an identity is linked to; an identity not linked yet is linked to the person of its
 * e-mail when the provider has verified that e-mail (a first sign-in with Google). Anyone else: 401 (no sign-up).
 */
export async function signInWithIdentity(settings: SignInSettings, identity: VouchedIdentity, attempt: Attempt): Promise<Opened> {
  const opened = await unitOfWork(
    settings.database,
    async (work) => {
      const linked = await repo.findIdentity(work.db, inWorkspace(attempt), identity.provider, identity.subject);
      let person: Person | undefined;
      if (linked) {
        person = await findPerson(work.db, inWorkspace(attempt), linked);
      } else if (identity.email && identity.emailVerified) {
        person = await findPersonByEmail(work.db, inWorkspace(attempt), identity.userType, identity.email);
        if (maySignIn(person)) addIdentity(work, person, identity, attempt);
      }
      return maySignIn(person) ? openSession(settings, work, person, 'oidc', attempt) : undefined;
    },
    { transaction: true },
  );
  if (opened) return opened;
  await unitOfWork(settings.database, async (work) =>
    record(work, undefined, attempt, 'userLoginFailed', `Failed sign-in with ${identity.provider}`, {
      method: 'oidc',
      provider: identity.provider,
      reason: 'unknownIdentity',
    }),
  );
  throw await refusal(settings, attempt, errors.unauthorized(`No one here signs in with this ${identity.provider} account.`));
}

function addIdentity(work: UnitOfWork, person: Person, identity: VouchedIdentity, attempt: Attempt): void {
  repo.insertIdentity(work, inWorkspace(person), {
    id: randomUUID(),
    person,
    provider: identity.provider,
    subject: identity.subject,
    email: identity.email,
    createdAt: isoAt(attempt.at),
  });
}

/** Links an identity to the signed-in person (from a sign-in with the provider started by that session). */
export async function linkIdentity(
  settings: SignInSettings,
  session: ActiveSession,
  identity: VouchedIdentity,
  attempt: Attempt,
): Promise<void> {
  await unitOfWork(settings.database, async (work) => addIdentity(work, session.person, identity, attempt));
}

export async function listIdentities(settings: SignInSettings, session: ActiveSession) {
  return repo.listIdentities(settings.database.db, inWorkspace(session.person), session.person);
}

/** Unlinks the person's identity at a provider (404 when none); for Google, googleDelinked. */
export async function unlinkIdentity(settings: SignInSettings, session: ActiveSession, provider: string, attempt: Attempt): Promise<void> {
  const identities = await repo.listIdentities(settings.database.db, inWorkspace(session.person), session.person);
  const linked = identities.some((identity) => identity.provider === provider);
  if (!linked) throw errors.notFound('Linked identity');
  await unitOfWork(settings.database, async (work) => {
    repo.deleteIdentity(work, inWorkspace(session.person), session.person, provider);
    if (provider === 'google')
      record(work, session.person, attempt, 'googleDelinked', `${session.person.email} unlinked their Google account`, {});
  });
}
