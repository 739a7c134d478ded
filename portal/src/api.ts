/**
 * The pages' only way to the server: the sign-in API at /portal/{workspaceId}/api. The session is the HttpOnly
 * `portal_session` cookie (no script reads it, these pages' included); every request that changes something carries
 * `X-Portal-Request: 1`, which no other site can make a browser send.
 */
import { BASE } from './router.js';

const API = `${BASE}/api`;

export type UserType = 'client' | 'internalUser';

export interface SignInSession {
  object: 'signInSession';
  id: string;
  stage: 'active' | 'mfaRequired' | 'mfaEnrolmentRequired';
  method: 'password' | 'magicLink' | 'invite' | 'passwordReset' | 'oidc';
  user: { type: UserType; id: string; email: string; givenName: string; familyName: string; role?: string; companyId?: string };
  mfaEnabled: boolean;
  createdAt: string;
  expiresAt: string;
}

export interface Provider {
  id: string;
  name: string;
}

/** An answer other than 2xx: the service's `{code, message, data}`, with the field problems by field name. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** `data: [{path: 'body.password', message}]` as `{password: message}` */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function errorOf(status: number, body: unknown): ApiError {
  const b = (body ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const fields: Record<string, string> = {};
  if (Array.isArray(b.data)) {
    for (const problem of b.data as { path?: unknown; message?: unknown }[]) {
      if (typeof problem?.path !== 'string' || typeof problem.message !== 'string') continue;
      const name = problem.path.replace(/^body\.?/, '');
      if (name && !fields[name]) fields[name] = problem.message;
    }
  }
  const message = typeof b.message === 'string' ? b.message : `The server answered ${status}. Try again in a moment.`;
  return new ApiError(status, typeof b.code === 'string' ? b.code : 'error', message, fields);
}

async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = method === 'GET' ? {} : { 'x-portal-request': '1' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(API + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) throw errorOf(response.status, parsed);
  return parsed as T;
}

/** Where a plain navigation starts signing in with an OpenID provider (the server redirects to it). */
export const providerStartUrl = (providerId: string, userType: UserType) =>
  `${API}/oidc/${encodeURIComponent(providerId)}/start?userType=${userType}`;

export const api = {
  session: () => call<SignInSession>('GET', '/session'),
  /** The workspace's OpenID providers; none when the server offers none (or this version has no such list). */
  async providers(): Promise<Provider[]> {
    try {
      const answer = await call<{ data?: Provider[] }>('GET', '/sign-in/providers');
      return Array.isArray(answer?.data) ? answer.data : [];
    } catch {
      return [];
    }
  },
  signInWithPassword: (body: { email: string; password: string; userType: UserType }) =>
    call<SignInSession>('POST', '/sign-in/password', body),
  requestLink: (body: { email: string; userType: UserType }) => call<{ message: string }>('POST', '/sign-in/link', body),
  redeemLink: (token: string) => call<SignInSession>('POST', '/sign-in/link/redeem', { token }),
  verifyCode: (code: string) => call<SignInSession>('POST', '/sign-in/totp', { code }),
  requestPasswordReset: (body: { email: string; userType: UserType }) => call<{ message: string }>('POST', '/password-resets', body),
  completePasswordReset: (body: { token: string; password: string }) => call<void>('POST', '/password-resets/complete', body),
  acceptInvite: (body: { token: string; password?: string }) => call<SignInSession>('POST', '/invites/accept', body),
  signOut: () => call<void>('DELETE', '/session'),
  changePassword: (body: { currentPassword?: string; newPassword: string }) => call<void>('PUT', '/password', body),
  beginTotp: () => call<{ secret: string; otpauthUri: string }>('POST', '/mfa/totp'),
  confirmTotp: (code: string) => call<{ recoveryCodes: string[]; session: SignInSession }>('POST', '/mfa/totp/confirm', { code }),
  disableTotp: (code: string) => call<void>('POST', '/mfa/totp/disable', { code }),
};
