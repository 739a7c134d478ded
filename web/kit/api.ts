/**
 * The front ends' way to the server: the service's error as one ApiError, a plain JSON request, and a client typed
 * by the OpenAPI document (openapi-fetch over api-types.ts, which `npm run gen:web-types` generates from
 * /openapi.json), whose answers and bodies the type check holds to what the server documents.
 */
import createClient from 'openapi-fetch';
import type { paths } from './api-types.js';

export type { paths } from './api-types.js';

/** An answer other than 2xx, with the service's error body ({code, message, data}); status 0: no answer at all. */
export class ApiError extends Error {
  /** a schema failure's `data: [{path: 'body.password', message}]` as `{password: message}` */
  readonly fields: Record<string, string>;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
    this.fields = fieldsOf(data);
  }
}

function fieldsOf(data: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(data)) return fields;
  for (const problem of data as { path?: unknown; message?: unknown }[]) {
    if (typeof problem?.path !== 'string' || typeof problem.message !== 'string') continue;
    const name = problem.path.replace(/^body\.?/, '');
    if (name && !fields[name]) fields[name] = problem.message;
  }
  return fields;
}

/** The ApiError of a non-2xx answer and its body (JSON, text or nothing). */
export function errorOf(status: number, body: unknown): ApiError {
  const b = (body !== null && typeof body === 'object' ? body : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
    error?: unknown;
  };
  // The daily quota's 429 is the specification's {"error": "quota limit reached"}.
  const nested = (typeof b.error === 'object' && b.error !== null ? b.error : typeof b.error === 'string' ? { message: b.error } : {}) as {
    code?: unknown;
    message?: unknown;
  };
  const code = typeof b.code === 'string' ? b.code : typeof nested.code === 'string' ? nested.code : 'error';
  const message =
    typeof b.message === 'string'
      ? b.message
      : typeof nested.message === 'string'
        ? nested.message
        : `The server answered ${status}. Try again in a moment.`;
  return new ApiError(status, code, message, b.data ?? null);
}

const NETWORK = 'The server could not be reached. Check your connection and try again.';

/** A body as JSON, or undefined when it is empty or not JSON. */
export async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** How a front end sends a request: fetch, or fetch with its credentials added (a header, a token). */
export type Send = (request: Request) => Promise<Response>;

/** A JSON request through `send` (what the typed client does not cover); throws ApiError unless 2xx. */
export async function request<T>(url: string, init: RequestInit = {}, send: Send = fetch): Promise<T> {
  let response: Response;
  try {
    response = await send(new Request(url, { credentials: 'same-origin', cache: 'no-store', ...init }));
  } catch {
    throw new ApiError(0, 'network', NETWORK);
  }
  const body = await bodyOf(response);
  if (!response.ok) throw errorOf(response.status, body);
  return body as T;
}

/**
 * A client of every documented path, its requests and answers typed by the document, sending through `send`; under
 * `baseUrl` when the API is reached below another path (the portal's `/portal/{workspaceId}` before `/v1/…`).
 */
export function typedClient(send: Send = fetch, baseUrl = '') {
  return createClient<paths>({ baseUrl, credentials: 'same-origin', cache: 'no-store', fetch: send });
}

/** The answer of a typed call, or its ApiError thrown (status 0 when the server could not be reached). */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await pending;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(0, 'network', NETWORK);
  }
  if (!answer.response.ok) throw errorOf(answer.response.status, answer.error);
  return answer.data as T;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type Responses<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R } ? R : never;

/** The 2xx JSON body of an operation, as documented: `Answer<'/v1/clients/{id}', 'get'>`. */
export type Answer<P extends keyof paths, M extends Method = 'get'> = JsonOf<
  Responses<P, M>[Extract<keyof Responses<P, M>, 200 | 201 | 202>]
>;

/** One item of a documented list (`{data: […], nextToken}`): `Item<'/v1/clients'>`. */
export type Item<P extends keyof paths, M extends Method = 'get'> = Answer<P, M> extends { data: (infer I)[] } ? I : never;

/** The JSON request body of an operation, as documented. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** A list as the API answers it: one page, and the token of the next when there is one. */
export interface Page<T> {
  data: T[];
  nextToken?: string;
}
