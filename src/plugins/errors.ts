import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import fp from 'fastify-plugin';
import { isConnectionError, isUniqueViolation } from '../db/errors.js';
import { ApiError, errors } from '../lib/errors.js';
import { describeValidationErrors } from './validation.js';

/** The methods a 405's Allow header may list: every one a route of this service is declared with (HEAD: each GET's). */
const HTTP_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Fastify's own 4xx errors (body parsing, content type, bad URL) mapped to contract §5 codes. */
function fromFastifyError(error: FastifyError, bodyLimit: number): ApiError | undefined {
  if (error.validation) {
    return errors.invalidFields(describeValidationErrors(error.validation as any, error.validationContext));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.badRequest('Request body is empty but Content-Type is application/json.', [{ path: 'body', message: 'is empty' }]);
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return errors.badRequest(`Malformed JSON body: ${error.message}`, [{ path: 'body', message: 'is not valid JSON' }]);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return errors.badRequest(error.message);
  return undefined;
}

/**
 * One error handler for every path: coded errors, schema failures, body parsing, unique violations
 * from either driver, unreachable storage, and anything else (500, message hidden, logged in full).
 */
export default fp(
  async function errorHandling(app: FastifyInstance, opts: { bodyLimit: number }) {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      let apiError =
        error instanceof ApiError
          ? error
          : isUniqueViolation(error)
            ? errors.conflict('An object with these unique values already exists.')
            : fromFastifyError(error, opts.bodyLimit);
      if (!apiError && isConnectionError(error)) {
        request.log.error({ err: error }, 'storage unavailable');
        apiError = errors.unavailable('Storage is unavailable; retry shortly.');
      }
      if (!apiError) {
        request.log.error({ err: error }, 'unhandled error');
        return reply.code(500).send({ code: 'internal_error', message: 'Internal server error.', data: { requestId: request.id } });
      }
      if (apiError.statusCode >= 500) request.log.warn({ code: apiError.code }, apiError.message);
      // Every 500, the service's own ones too (a file's content missing from the store), names its request in the logs.
      const data = apiError.statusCode === 500 ? { requestId: request.id } : apiError.data;
      return reply.code(apiError.statusCode).headers(apiError.headers).send({ code: apiError.code, message: apiError.message, data });
    });

    // A path served with other methods only is a 405 naming them in Allow (RFC 9110 §15.5.6), not a 404: looked up
    // in the router here, when a request missed, so nothing is built at start-up for it. A route's own 404
    // (reply.callNotFound for a path it serves) stays a 404.
    const answerNoRoute = (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0];
      const allowed: string[] = HTTP_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
      if (allowed.length > 0 && !allowed.includes(request.method)) {
        const message = `Method ${request.method} is not allowed on ${path}; it allows ${allowed.join(', ')}.`;
        return reply.code(405).header('allow', allowed.join(', ')).send({ code: 'method_not_allowed', message, data: null });
      }
      const error = errors.notFound('Route');
      return reply.code(404).send({ code: error.code, message: `No route ${request.method} ${path}.`, data: null });
    };
    app.setNotFoundHandler(answerNoRoute);
    // A request no route takes is answered before its body is read: no body or Content-Type rule of a method no
    // route has (Fastify's QUERY must carry a Content-Type) turns its 405 or 404 into a 400 or a 415.
    app.addHook('onRequest', function answerUnrouted(request, reply, done) {
      if (request.is404) return answerNoRoute(request, reply);
      done();
    });
  },
  { name: 'errors' },
);
