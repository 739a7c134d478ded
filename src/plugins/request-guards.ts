import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiError, errors } from '../lib/errors.js';
import { MAX_BODY_DEPTH } from '../lib/schemas.js';
import { NO_LONE_SURROGATE, hasLoneSurrogate } from '../lib/text.js';

/**
 * Input the schemas never see, checked before it reaches a handler or the database:
 * - the NUL character (PostgreSQL cannot store it in text; SQLite would): a 400 naming the field, on both backends;
 * - a lone surrogate (U+D800–U+DFFF without its pair: a JSON escape can write one, no UTF-8 can hold one, so SQLite
 *   stored three U+FFFD for it and PostgreSQL one, the text silently changed): a 400 naming the field, in every string
 *   and key of a JSON body, whatever its schema; so is a body whose bytes are not UTF-8, and a query value whose
 *   percent escapes are not (a lone surrogate's included), rather than either decoded with U+FFFD in their place;
 * - more than MAX_QUERY_PARAMETERS query parameters: a 400, never a silently truncated filter;
 * - a JSON body in a charset other than UTF-8: a 415, never decoded as UTF-8 anyway;
 * - a JSON body nested deeper than MAX_BODY_DEPTH: a 400 naming the field (serializing it, or any recursive
 *   walk, would overflow the stack: a 500);
 * - the router's own errors (a bad percent escape, an over-long path parameter): the contract's body.
 * The common request pays one `includes` on the URL and one on a JSON body.
 */

const MAX_QUERY_PARAMETERS = 100;

const NUL = '\u0000';
const TOO_MANY_PARAMETERS = Symbol('tooManyQueryParameters');

const NOT_UTF8_QUERY = Symbol('queryNotUtf8');

const nulProblem = (path: string): ApiError => errors.invalidField(path, 'must not contain the NUL character (U+0000)');
const loneSurrogateProblem = (path: string): ApiError => errors.invalidField(path, NO_LONE_SURROGATE);
/** A JSON escape of a surrogate: a lone one can reach a parsed string only so (bytes that are not UTF-8 are refused first). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

const hasNul = (text: string) => text.includes(NUL);

/** The dotted path of the first string or key that `bad` finds something in, if any (a key's: its object's path). */
function pathOf(value: unknown, path: string, bad: (text: string) => boolean): string | undefined {
  if (typeof value === 'string') return bad(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (bad(key)) return path;
    const found = pathOf(item, `${path}.${key}`, bad);
    if (found) return found;
  }
  return undefined;
}

/** Whether `decodeURIComponent` takes the text: its percent escapes are well formed and UTF-8 (a lone surrogate's three bytes are not). */
function decodesAsUtf8(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether JSON text nests deeper than `max` arrays and objects (strings skipped): one pass, no recursion. */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

/** How many arrays and objects deep a value goes (0 for a scalar), level by level: no recursion. */
function containerDepth(value: unknown): number {
  let level = [value];
  for (let depth = 0; ; depth++) {
    const containers = level.filter(isContainer);
    if (containers.length === 0) return depth;
    level = containers.flatMap((container) => Object.values(container));
  }
}

/** The path of the body's top-level field that nests too deep, for the 400. */
function pathOfDeepField(body: unknown, max: number): string {
  if (!isContainer(body)) return 'body';
  for (const [key, value] of Object.entries(body)) if (1 + containerDepth(value) > max) return `body.${key}`;
  return 'body';
}

/**
 * The query string as an object: every parameter kept (node's default drops those after the 1,000th,
 * which could drop a filter), an empty value meaning "no filter" (the official SDK sends empty filters).
 * Too many parameters marks the result; the onRequest hook answers 400 (a parser cannot answer).
 */
export function parseQueryString(text: string): Record<string, unknown> {
  let separators = 0;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    if (++separators >= MAX_QUERY_PARAMETERS) return { [TOO_MANY_PARAMETERS]: true };
  }
  // node's parser decodes escapes that are not UTF-8 with U+FFFD in their place (and keeps a malformed one as
  // written): such a parameter is named instead, or the query when its name is the one that does not decode.
  if (text.includes('%')) {
    const bad = text.split('&').find((pair) => !decodesAsUtf8(pair));
    if (bad !== undefined) {
      const name = bad.split('=')[0];
      return { [NOT_UTF8_QUERY]: decodesAsUtf8(name) ? decodeURIComponent(name.replaceAll('+', ' ')) : '' };
    }
  }
  const parsed: Record<string, unknown> = parseQuery(text, '&', '=', { maxKeys: 0 });
  for (const key of Object.keys(parsed)) if (parsed[key] === '') delete parsed[key];
  return parsed;
}

/** Fastify's `frameworkErrors`: router failures answered in the contract's shape, with X-Request-Id. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const problem =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? errors.invalidField('params', 'is longer than 100 characters')
      : errors.invalidField('url', 'is not a valid percent-encoded path');
  reply
    .code(problem.statusCode)
    .header('x-request-id', request.id)
    .send({ code: problem.code, message: problem.message, data: problem.data });
}

const CLIENT_ERRORS: Record<string, [number, string, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request did not arrive in time.'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'bad_request', 'The request headers are too large.'],
};

/**
 * Fastify's `clientErrorHandler`: errors of the connection before a request exists (a stalled body
 * past REQUEST_TIMEOUT_MS, headers too large, unparsable HTTP), in the contract's shape, then closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', 'bad_request', 'Malformed HTTP request.'];
  if (socket.writable) {
    const body = JSON.stringify({ code, message, data: null });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nx-request-id: ${randomUUID()}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

const UTF8 = /^utf-?8$/i;

export default fp(
  async function requestGuards(app: FastifyInstance) {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
      if (charset !== undefined && !UTF8.test(charset)) {
        return done(errors.unsupportedMediaType(`Request body must be UTF-8 JSON (got charset=${charset}).`), undefined);
      }
      // Decoded as UTF-8 only if it is UTF-8: otherwise each bad byte would become U+FFFD, the text silently changed.
      if (!isUtf8(bytes as Buffer)) return done(errors.invalidField('body', 'is not valid UTF-8'), undefined);
      const text = (bytes as Buffer).toString('utf8');
      // A DELETE takes no body: an empty one is no body, whatever the Content-Type says.
      if (text === '' && request.method === 'DELETE') return done(null, undefined);
      // The default parser answers through the callback (its return value is nothing to wait for).
      void parseJson(request, text, (error, body) => {
        if (error) return done(error, undefined);
        // A body shorter than twice the bound cannot nest deeper than it: the common request skips the scan.
        if (text.length > 2 * MAX_BODY_DEPTH && nestsDeeper(text, MAX_BODY_DEPTH)) {
          const path = pathOfDeepField(body, MAX_BODY_DEPTH);
          return done(errors.invalidField(path, `nests deeper than ${MAX_BODY_DEPTH} levels`), undefined);
        }
        // A NUL can reach a JSON string only as the escape \u0000, a lone surrogate only as the escape of a surrogate.
        const nulAt = text.includes('\\u0000') ? pathOf(body, 'body', hasNul) : undefined;
        if (nulAt) return done(nulProblem(nulAt), undefined);
        const loneAt = SURROGATE_ESCAPE.test(text) ? pathOf(body, 'body', hasLoneSurrogate) : undefined;
        if (loneAt) return done(loneSurrogateProblem(loneAt), undefined);
        done(null, body);
      });
    });

    app.addHook('onRequest', function refuseTooManyParameters(request, _reply, done) {
      const query = request.query as Record<string | symbol, unknown>;
      if (query[TOO_MANY_PARAMETERS]) {
        return done(
          errors.badRequest(`More than ${MAX_QUERY_PARAMETERS} query parameters.`, [{ path: 'query', message: 'has too many parameters' }]),
        );
      }
      const notUtf8 = query[NOT_UTF8_QUERY];
      if (notUtf8 !== undefined)
        return done(errors.invalidField(notUtf8 ? `query.${notUtf8}` : 'query', 'is not valid percent-encoded UTF-8'));
      // A NUL reaches a path or query value only percent-encoded (a lone surrogate cannot: its escapes are not UTF-8,
      // which the router refuses in a path and the query parser names).
      if (request.raw.url?.includes('%00')) {
        const nulAt = pathOf(request.params, 'params', hasNul) ?? pathOf(request.query, 'query', hasNul);
        if (nulAt) return done(nulProblem(nulAt));
      }
      done();
    });
  },
  { name: 'request-guards' },
);
