/**
 * When a portal sign-in session (modules/surfaces/sign-in) is over, in one place: the sign-in module opens and checks
 * sessions with it, and the credentials module ends the app sessions a sign-in opened with it (issue 42, point 3).
 */

const MINUTE = 60_000;
/** ASVS 3.3.2 (level 2): signed in again after 12 hours, or after 30 minutes without a request. */
export const SIGN_IN_LIFETIME_MS = 12 * 60 * MINUTE;
export const SIGN_IN_IDLE_MS = 30 * MINUTE;

/**
 * Whether an active session must step down to the TOTP step: staff of a workspace that requires TOTP whose session
 * passed no second factor (it was opened before the workspace required one). It answers as a fresh sign-in would
 * (`mfaRequired`, or `mfaEnrolmentRequired` without an authenticator) until it passes one, and opens no app meanwhile.
 */
export function mustStepDown(session: { internalUser: boolean; staffMfaRequired: boolean; secondFactor: boolean }): boolean {
  return session.internalUser && session.staffMfaRequired && !session.secondFactor;
}

/** The session cookie: HttpOnly, scoped to the workspace's portal, Lax (an OpenID provider's redirect back must carry it). */
export const SIGN_IN_COOKIE = 'portal_session';
/** What a browser request that changes anything must carry (CSRF): no other site can make a browser send it. */
export const PORTAL_REQUEST_HEADER = 'x-portal-request';
