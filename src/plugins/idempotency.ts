import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onSendHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { claimKey, fingerprintOf, recordAnswer, releaseKey, sweepExpiredKeys } from '../idempotency/idempotency.store.js';
import { ApiError } from '../lib/errors.js';
import { errorResponses } from '../lib/schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed; its answer is kept for the key's retries. */
    idempotencyKey: string | null;
  }
}

const HEADER = 'idempotency-key';

/** The header on every POST: validated with the route's other inputs (a key over 255 characters is a 400). */
const IdempotencyHeaders = Type.Object({
  [HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Makes the POST safe to retry: its first answer (status and body, 5xx included) is kept 24 hours for this workspace and key, ' +
        'and a retry with the same key and request gets it again with `Idempotent-Replayed: true`. The same key with another ' +
        'request is a 422; a retry while the first still runs is a 409. A request that fails validation keeps nothing.',
    }),
  ),
});

const errorBody = errorResponses(409)[409];
const IDEMPOTENCY_ERRORS = {
  409: { ...errorBody, description: 'Conflict with an existing object, or the first request with this Idempotency-Key is still running' },
  422: { ...errorBody, description: 'This Idempotency-Key was used with another request (method, URL or body)' },
};

const running = () =>
  new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
const reused = () =>
  new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with another request (method, URL or body).');

/** Expired keys are swept once every this many claims (a bounded delete on the created_at index). */
const SWEEP_EVERY = 100;

function isPost(route: RouteOptions) {
  return Array.isArray(route.method) ? route.method.includes('POST') : route.method === 'POST';
}

const asArray = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * `Idempotency-Key` on every POST of the scope (as Stripe has it). Requests without the header pay one
 * header lookup. The key is claimed after the request passed authentication, limits, permissions and
 * validation (so a 4xx there keeps nothing), and the answer is written before it is sent.
 */
export default fp(
  async function idempotency(app: FastifyInstance) {
    const { db, clock } = app.ctx;
    let claims = 0;
    app.decorateRequest('idempotencyKey', null);

    function claim(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      const key = request.headers[HEADER];
      if (typeof key !== 'string') return done();
      const workspaceId = request.caller.principal.workspaceId;
      const now = clock.now();
      claimKey(db, workspaceId, key, fingerprintOf(request.method, request.url, request.body), now).then((found) => {
        switch (found.kind) {
          case 'claimed':
            request.idempotencyKey = key;
            if (++claims % SWEEP_EVERY === 0)
              sweepExpiredKeys(db, now).catch((error) => request.log.warn({ err: error }, 'idempotency sweep failed'));
            return done();
          case 'replay':
            reply.code(found.statusCode).header('idempotent-replayed', 'true');
            // An empty answer (a 202 that stored nothing) is replayed empty, without a content type.
            if (found.body === '') reply.send();
            else reply.type('application/json; charset=utf-8').send(found.body);
            return;
          case 'running':
            return done(running());
          case 'mismatch':
            return done(reused());
        }
      }, done);
    }

    const keepAnswer: onSendHookHandler = (request, reply, payload, done) => {
      const key = request.idempotencyKey;
      if (key === null) return done(null, payload);
      const workspaceId = request.caller.principal.workspaceId;
      // A 400 from the service is a failed validation too: the key is given up, a corrected retry runs.
      const kept =
        reply.statusCode === 400
          ? releaseKey(db, workspaceId, key)
          : recordAnswer(db, workspaceId, key, reply.statusCode, typeof payload === 'string' ? payload : String(payload ?? ''));
      kept.then(
        () => done(null, payload),
        (error) => {
          request.log.error({ err: error }, 'could not keep the answer of an Idempotency-Key');
          done(null, payload);
        },
      );
    };

    app.addHook('onRoute', (route) => {
      if (!isPost(route)) return;
      route.schema ??= {};
      const schema = route.schema;
      schema.headers ??= IdempotencyHeaders;
      schema.response = { ...IDEMPOTENCY_ERRORS, ...(schema.response as object), 409: IDEMPOTENCY_ERRORS[409] };
      route.preHandler = [claim, ...asArray(route.preHandler)] as preHandlerHookHandler[];
      route.onSend = [keepAnswer, ...asArray(route.onSend)] as onSendHookHandler[];
    });
  },
  { name: 'idempotency', dependencies: ['auth'] },
);
