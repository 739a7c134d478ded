/**
 * The pages' only ways to the server, typed by the OpenAPI document (openapi-fetch over web/kit/api-types.ts): the
 * sign-in API at /portal/{workspaceId}/api, and the `/v1` API at /portal/{workspaceId}/v1/… (`v1`), where the person
 * is a caller like any other, with the API's own permissions. The session is the HttpOnly `portal_session` cookie
 * (no script reads it, these pages' included); every request that changes something carries `X-Portal-Request: 1`,
 * which no other site can make a browser send.
 */
import { type Answer, type Body, type Send, ok, request, typedClient } from '../../kit/api.js';
import { BASE, WORKSPACE_ID } from './router.js';

export { ApiError } from '../../kit/api.js';

export type SignInSession = Answer<'/portal/{workspaceId}/api/session'>;
export type UserType = SignInSession['user']['type'];
export type Person = SignInSession['user'];
export type PortalWorkspace = Answer<'/portal/{workspaceId}/api/workspace'>;
export type Provider = Answer<'/portal/{workspaceId}/api/sign-in/providers'>['data'][number];
export type Profile = Answer<'/portal/{workspaceId}/api/profile'>;
export type ProfileUpdate = Body<'/portal/{workspaceId}/api/profile', 'patch'>;

/** Every request but a GET says it comes from these pages. */
const send: Send = (request) => {
  if (request.method !== 'GET') request.headers.set('x-portal-request', '1');
  return fetch(request);
};

const client = typedClient(send);

/** The `/v1` API as the signed-in person: `v1.GET('/v1/invoices', …)` (wrap it in `ok` for the answer or an ApiError). */
export const v1 = typedClient(send, BASE);
export { ok };
/** The workspace of every call: the one whose portal this is. */
const params = { path: { workspaceId: decodeURIComponent(WORKSPACE_ID) } };

/** Where a plain navigation starts signing in with an OpenID provider (the server redirects to it). */
export const providerStartUrl = (providerId: string, userType: UserType) =>
  `${BASE}/api/oidc/${encodeURIComponent(providerId)}/start?userType=${userType}`;

export const api = {
  session: () => ok(client.GET('/portal/{workspaceId}/api/session', { params })),
  workspace: () => ok(client.GET('/portal/{workspaceId}/api/workspace', { params })),
  /** The workspace's OpenID providers; none when the server offers none (or this version has no such list). */
  async providers(): Promise<Provider[]> {
    try {
      const answer = await ok(client.GET('/portal/{workspaceId}/api/sign-in/providers', { params }));
      return Array.isArray(answer?.data) ? answer.data : [];
    } catch {
      return [];
    }
  },
  signInWithPassword: (body: { email: string; password: string; userType: UserType }) =>
    ok(client.POST('/portal/{workspaceId}/api/sign-in/password', { params, body })),
  requestLink: (body: { email: string; userType: UserType }) => ok(client.POST('/portal/{workspaceId}/api/sign-in/link', { params, body })),
  redeemLink: (token: string) => ok(client.POST('/portal/{workspaceId}/api/sign-in/link/redeem', { params, body: { token } })),
  verifyCode: (code: string) => ok(client.POST('/portal/{workspaceId}/api/sign-in/totp', { params, body: { code } })),
  requestPasswordReset: (body: { email: string; userType: UserType }) =>
    ok(client.POST('/portal/{workspaceId}/api/password-resets', { params, body })),
  completePasswordReset: (body: { token: string; password: string }) =>
    ok(client.POST('/portal/{workspaceId}/api/password-resets/complete', { params, body })),
  acceptInvite: (body: { token: string; password?: string }) =>
    ok(client.POST('/portal/{workspaceId}/api/invites/accept', { params, body })),
  signOut: () => ok(client.DELETE('/portal/{workspaceId}/api/session', { params })),
  changePassword: (body: { currentPassword?: string; newPassword: string }) =>
    ok(client.PUT('/portal/{workspaceId}/api/password', { params, body })),
  beginTotp: () => ok(client.POST('/portal/{workspaceId}/api/mfa/totp', { params })),
  confirmTotp: (code: string) => ok(client.POST('/portal/{workspaceId}/api/mfa/totp/confirm', { params, body: { code } })),
  disableTotp: (code: string) => ok(client.POST('/portal/{workspaceId}/api/mfa/totp/disable', { params, body: { code } })),
  /** The signed-in person's own profile: names, picture, whether notifications are e-mailed. */
  profile: () => ok(client.GET('/portal/{workspaceId}/api/profile', { params })),
  updateProfile: (body: ProfileUpdate) => ok(client.PATCH('/portal/{workspaceId}/api/profile', { params, body })),
  /** The picture's bytes as the body, of its own type (the server reads the type from the bytes). */
  uploadAvatar: (file: Blob) =>
    request<Profile>(
      `${BASE}/api/profile/avatar`,
      { method: 'PUT', body: file, headers: { 'content-type': file.type || 'application/octet-stream' } },
      send,
    ),
  removeAvatar: () => ok(client.DELETE('/portal/{workspaceId}/api/profile/avatar', { params })),
  /** The session token an installed app's frame gets, for the signed-in person. */
  openApp: (installId: string) =>
    ok(client.POST('/portal/{workspaceId}/api/apps/{installId}/session', { params: { path: { ...params.path, installId } } })),
};
