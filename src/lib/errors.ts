/**
 * The one error type the service throws on purpose; the error plugin turns it into contract §5's body. Every one is
 * made by `errors` below: the registry of the codes the service answers with.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface FieldProblem {
  path: string;
  message: string;
}

export const errors = {
  badRequest: (message: string, data: FieldProblem[] = []) => new ApiError(400, 'bad_request', message, data),
  /**
   * The 400 of failed field rules, one format everywhere: `${path} ${message}` for one problem,
   * `${n} fields are invalid` for several, and every problem in `data`.
   */
  invalidFields: (problems: FieldProblem[]) =>
    new ApiError(
      400,
      'bad_request',
      problems.length === 1 ? `${problems[0].path} ${problems[0].message}` : `${problems.length} fields are invalid`,
      problems,
    ),
  invalidField: (path: string, message: string) => new ApiError(400, 'bad_request', `${path}: ${message}`, [{ path, message }]),
  unauthorized: (message = 'Missing, unknown, revoked or expired credentials.') => new ApiError(401, 'unauthorized', message),
  forbidden: (message = 'You are not allowed to do this.') => new ApiError(403, 'forbidden', message),
  notFound: (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found.`),
  /** A 404 that says more than what was looked for (why it is absent, or which of several items are). */
  notFoundBecause: (message: string, data: FieldProblem[] | null = null) => new ApiError(404, 'not_found', message, data),
  /** A charge the processor declined or could not make: the payment recorded as failed, and why. */
  paymentFailed: (message: string, data: { paymentId: string; declineCode: string | null | undefined }) =>
    new ApiError(402, 'payment_failed', message, data),
  conflict: (message: string) => new ApiError(409, 'conflict', message),
  payloadTooLarge: (limit: number) => new ApiError(413, 'payload_too_large', `Request body is larger than ${limit} bytes.`),
  unsupportedMediaType: (message = 'Request body must be JSON (Content-Type: application/json).', data: FieldProblem[] | null = null) =>
    new ApiError(415, 'unsupported_media_type', message, data),
  idempotencyKeyInUse: () =>
    new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.'),
  idempotencyKeyReused: () =>
    new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with another request (method, URL or body).'),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, 'rate_limit_exceeded', 'Too many requests; retry after the Retry-After delay.', null, {
      'retry-after': String(retryAfterSeconds),
    }),
  /** A caller with as many event streams open on this server process as it may have (lib/event-streams.ts). */
  tooManyStreams: (max: number, retryAfterSeconds: number) =>
    new ApiError(
      429,
      'rate_limit_exceeded',
      `Too many open event streams: at most ${max} per caller on one server; close one (or wait for one to end) first.`,
      null,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  unavailable: (message = 'The service is temporarily unavailable.', retryAfterSeconds = 1) =>
    new ApiError(503, 'unavailable', message, null, { 'retry-after': String(retryAfterSeconds) }),
  /** A fault of the service's own making that it can name (data it holds is inconsistent): a 500 with its reason. */
  internal: (message: string) => new ApiError(500, 'internal_error', message),
};

/** The object found, or a 404 naming what was looked for. */
export function orNotFound<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw errors.notFound(what);
  return value;
}
