/**
 * The console's only way to the server: the admin surface (/admin, authenticated by the HttpOnly
 * session cookie plus the X-Portal-Console header the server demands of cookie requests) and the
 * public API (/v1, with a one-hour workspace token minted on the admin surface and kept in memory).
 * The admin token itself is never kept: it is sent once, to POST /admin/session.
 */

/** An answer other than 2xx, with the service's error body ({code, message, data}). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface Page<T> {
  data: T[];
  nextToken?: string;
}

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

async function answer<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) throw errorOf(response.status, body, response.statusText);
  return body as T;
}

function errorOf(status: number, body: unknown, statusText: string): ApiError {
  const b = (body ?? {}) as { code?: string; message?: string; data?: unknown; error?: string | { code?: string; message?: string } };
  // The daily quota's 429 is the specification's {"error": "quota limit reached"}.
  const nested = typeof b.error === 'object' ? b.error : typeof b.error === 'string' ? { message: b.error } : undefined;
  const code = b.code ?? nested?.code ?? 'error';
  const message = b.message ?? nested?.message ?? `${status} ${statusText || 'error'}`;
  return new ApiError(status, code, message, b.data ?? null);
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

async function call<T>(method: Method, url: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { ...headers }, credentials: 'same-origin', cache: 'no-store' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  return answer<T>(await fetch(url, init));
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

export interface Session {
  /** null when the request was authenticated otherwise than by the cookie */
  expiresAt: string | null;
}

export const session = {
  /** The session the cookie carries, or null when there is none. */
  async current(): Promise<Session | null> {
    try {
      return await call<Session>('GET', '/admin/session', CONSOLE_HEADER);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  /** Exchanges the admin token for the session cookie; the token goes no further than this request. */
  signIn: (token: string) => call<void>('POST', '/admin/session', CONSOLE_HEADER, { token }),
  async signOut(): Promise<void> {
    forgetTokens();
    await call<void>('DELETE', '/admin/session', CONSOLE_HEADER);
  },
};

async function adminCall<T>(method: Method, url: string, body?: unknown): Promise<T> {
  try {
    return await call<T>(method, `/admin${url}`, CONSOLE_HEADER, body);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) sessionLost();
    throw error;
  }
}

/** The admin surface, through the session cookie. */
export const admin = {
  get: <T>(url: string, query?: Query) => adminCall<T>('GET', withQuery(url, query)),
  post: <T>(url: string, body?: unknown) => adminCall<T>('POST', url, body),
  patch: <T>(url: string, body: unknown) => adminCall<T>('PATCH', url, body),
  delete: <T>(url: string) => adminCall<T>('DELETE', url),
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
    pending = admin
      .post<{ token: string; tokenExpiresAt: unknown }>(path`/workspaces/${workspaceId}/tokens`)
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

async function v1Call<T>(workspaceId: string, method: Method, url: string, body?: unknown): Promise<T> {
  const attempt = async (renew: boolean) =>
    call<T>(method, `/v1${url}`, { authorization: `Bearer ${await tokenFor(workspaceId, renew)}` }, body);
  try {
    return await attempt(false);
  } catch (error) {
    // Expired or revoked early (a restart, a rotated key): mint once more and retry once.
    if (error instanceof ApiError && error.status === 401) {
      tokens.delete(workspaceId);
      return attempt(true);
    }
    throw error;
  }
}

/** The public API of one workspace, with its full rights. */
export function v1(workspaceId: string) {
  return {
    get: <T>(url: string, query?: Query) => v1Call<T>(workspaceId, 'GET', withQuery(url, query)),
    post: <T>(url: string, body?: unknown) => v1Call<T>(workspaceId, 'POST', url, body),
    patch: <T>(url: string, body: unknown) => v1Call<T>(workspaceId, 'PATCH', url, body),
    delete: <T>(url: string) => v1Call<T>(workspaceId, 'DELETE', url),
  };
}

// --- files ------------------------------------------------------------------------------------------

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
      reject(errorOf(xhr.status, body, xhr.statusText));
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
    await answer(response);
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
