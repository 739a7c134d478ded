/**
 * The console's only way to the server: the admin surface (/admin, authenticated by the HttpOnly
 * session cookie plus the X-Portal-Console header the server demands of cookie requests) and the
 * public API (/v1, with a one-hour workspace token minted on the admin surface and kept in memory).
 * The admin token itself is never kept: it is sent once, to POST /admin/session.
 * Both are typed by the OpenAPI document (`adminApi`, `v1Api`: openapi-fetch over web/kit/api-types.ts).
 */
import { ApiError, type Send, bodyOf, errorOf, ok, request, typedClient } from '../../kit/api.js';

export { ApiError, ok };
export type { Page } from '../../kit/api.js';

export type Query = Record<string, string | number | boolean | undefined | null>;

/** `/x/${id}` with every interpolated value percent-encoded. */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, part, i) => out + encodeURIComponent(values[i - 1]) + part);
}

function withQuery(url: string, query?: Query): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

/** The CSRF defence the server requires of every cookie-authenticated /admin request. */
const CONSOLE_HEADER = { 'x-portal-console': '1' } as const;

/** The session's own requests: with the console's header. */
const sessionSend: Send = (input) => {
  input.headers.set('x-portal-console', '1');
  return fetch(input);
};

/** The admin surface's requests: with the console's header; a 401 means the session is gone. */
const adminSend: Send = async (input) => {
  const response = await sessionSend(input);
  if (response.status === 401) sessionLost();
  return response;
};

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

function call<T>(send: Send, method: Method, url: string, body?: unknown): Promise<T> {
  if (body === undefined) return request<T>(url, { method }, send);
  return request<T>(url, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }, send);
}

// --- the session ------------------------------------------------------------------------------

const sessionLostListeners = new Set<() => void>();

/** Called when an /admin request answers 401: the cookie expired or was cleared. */
export function onSessionLost(listener: () => void): () => void {
  sessionLostListeners.add(listener);
  return () => sessionLostListeners.delete(listener);
}

function sessionLost() {
  forgetTokens();
  for (const listener of sessionLostListeners) listener();
}

const sessionApi = typedClient(sessionSend);

export type Session = NonNullable<Awaited<ReturnType<typeof session.current>>>;

export const session = {
  /** The session the cookie carries, or null when there is none. */
  async current() {
    try {
      return await ok(sessionApi.GET('/admin/session'));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  /** Exchanges the admin token for the session cookie; the token goes no further than this request. */
  signIn: (token: string) => ok(sessionApi.POST('/admin/session', { body: { token } })),
  async signOut(): Promise<void> {
    forgetTokens();
    await ok(sessionApi.DELETE('/admin/session'));
  },
};

/** The admin surface, typed: `ok(adminApi.GET('/admin/workspaces', {params: {query: {limit: 25}}}))`. */
export const adminApi = typedClient(adminSend);

/** The admin surface by path under /admin (what the typed client does not cover). */
export const admin = {
  get: <T>(url: string, query?: Query) => call<T>(adminSend, 'GET', `/admin${withQuery(url, query)}`),
  post: <T>(url: string, body?: unknown) => call<T>(adminSend, 'POST', `/admin${url}`, body),
  patch: <T>(url: string, body: unknown) => call<T>(adminSend, 'PATCH', `/admin${url}`, body),
  delete: <T>(url: string) => call<T>(adminSend, 'DELETE', `/admin${url}`),
};

// --- workspace tokens for the public API ----------------------------------------------------------

interface HeldToken {
  token: string;
  /** ms since the epoch */
  expiresAt: number;
}

const tokens = new Map<string, HeldToken>();
const minting = new Map<string, Promise<HeldToken>>();

/** Renewed this long before it expires, so no request leaves with a token about to die. */
const RENEW_BEFORE_MS = 60_000;

function forgetTokens() {
  tokens.clear();
  minting.clear();
}

/** Unix seconds (as POST /v1/token answers), ms, or an RFC 3339 string: as ms since the epoch. */
function expiryMs(value: unknown): number {
  if (typeof value === 'number') return value < 1e12 ? value * 1000 : value;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed;
  }
  return Date.now() + 10 * 60_000;
}

async function tokenFor(workspaceId: string, renew: boolean): Promise<string> {
  const held = tokens.get(workspaceId);
  if (!renew && held && held.expiresAt - RENEW_BEFORE_MS > Date.now()) return held.token;
  let pending = minting.get(workspaceId);
  if (!pending) {
    pending = ok(adminApi.POST('/admin/workspaces/{workspaceId}/tokens', { params: { path: { workspaceId } } }))
      .then((minted) => {
        const next = { token: minted.token, expiresAt: expiryMs(minted.tokenExpiresAt) };
        tokens.set(workspaceId, next);
        return next;
      })
      .finally(() => minting.delete(workspaceId));
    minting.set(workspaceId, pending);
  }
  return (await pending).token;
}

/** A workspace's requests: with its token; on a 401 (expired or revoked early: a restart, a rotated key), once more with a new one. */
function v1Send(workspaceId: string): Send {
  return async (input) => {
    const attempt = async (renew: boolean) => {
      const copy = input.clone();
      copy.headers.set('authorization', `Bearer ${await tokenFor(workspaceId, renew)}`);
      return fetch(copy);
    };
    const response = await attempt(false);
    if (response.status !== 401) return response;
    tokens.delete(workspaceId);
    return attempt(true);
  };
}

/** The public API of one workspace, with its full rights, typed: `ok(v1Api(id).GET('/v1/clients'))`. */
export function v1Api(workspaceId: string) {
  return typedClient(v1Send(workspaceId));
}

/** The public API of one workspace by path under /v1 (what the typed client does not cover). */
export function v1(workspaceId: string) {
  const send = v1Send(workspaceId);
  return {
    get: <T>(url: string, query?: Query) => call<T>(send, 'GET', `/v1${withQuery(url, query)}`),
    post: <T>(url: string, body?: unknown) => call<T>(send, 'POST', `/v1${url}`, body),
    patch: <T>(url: string, body: unknown) => call<T>(send, 'PATCH', `/v1${url}`, body),
    delete: <T>(url: string) => call<T>(send, 'DELETE', `/v1${url}`),
  };
}

// --- files ------------------------------------------------------------------------------------------

/** PUTs an image's bytes to an /admin path (a workspace's logo), declared as the file's own type (the server reads it anyway). */
export function uploadLogo<T>(url: string, file: Blob): Promise<T> {
  const headers = { 'content-type': file.type || 'application/octet-stream' };
  return request<T>(`/admin${url}`, { method: 'PUT', body: file, headers }, adminSend);
}

/** POSTs a CSV file to an /admin path with XHR, for its upload progress (0…1). */
export function uploadCsv<T>(url: string, file: Blob, onProgress: (fraction: number) => void, timeoutMs = 300_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/admin${url}`);
    xhr.timeout = timeoutMs;
    xhr.setRequestHeader('content-type', 'text/csv');
    xhr.setRequestHeader('x-portal-console', '1');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      onProgress(1);
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as T);
      if (xhr.status === 401) sessionLost();
      reject(errorOf(xhr.status, body));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload failed: the server could not be reached.')));
    xhr.addEventListener('timeout', () => reject(new ApiError(0, 'timeout', 'The upload took too long and was stopped.')));
    xhr.send(file);
  });
}

/** GETs a file from an /admin path and hands it to the browser as a download. */
export async function download(url: string, fallbackName: string): Promise<string> {
  const response = await fetch(`/admin${url}`, { headers: CONSOLE_HEADER, credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) {
    if (response.status === 401) sessionLost();
    throw errorOf(response.status, await bodyOf(response));
  }
  const blob = await response.blob();
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? fallbackName;
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 30_000);
  return name;
}
