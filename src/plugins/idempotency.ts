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
import { type Slot, claimKey, fingerprintOf, recordAnswer, releaseKey, sweepExpiredKeys } from '../idempotency/idempotency.repository.js';
import { apiPrincipalOf, idempotencyScopeOf } from '../lib/caller.js';
import { errors } from '../lib/errors.js';
import { SecretBox } from '../lib/secret-box.js';
import { errorResponses } from '../lib/schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Where the Idempotency-Key this request claimed keeps its answer, for the key's retries. */
    idempotencySlot: Slot | null;
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
        'Makes the POST safe to retry: its first answer (status and body, 5xx included) is kept 24 hours for this key and the ' +
        'credential that sent it (an API key; one bearer token; a session: its end user through that app key), and a retry by ' +
        'the same credential with the same key and request gets it again with `Idempotent-Replayed: true`. Keys are per ' +
        'credential: another caller using the same key has its own, and never gets this answer. The answer is stored sealed ' +
        "(AES-256-GCM) under a key derived from the credential's secret, which the service does not keep, so an answer that " +
        'carries a secret (a bearer token, an `inviteUrl`) can be read back by its own caller only. The same key with another ' +
        'request is a 422; a retry while the first still runs is a 409. A request refused by authentication, limits, permissions ' +
        'or validation keeps nothing.',
    }),
  ),
});

const errorBody = errorResponses(409)[409];
const IDEMPOTENCY_ERRORS = {
  409: { ...errorBody, description: 'Conflict with an existing object, or the first request with this Idempotency-Key is still running' },
  422: { ...errorBody, description: 'This Idempotency-Key was used with another request (method, URL or body)' },
};

/** Expired keys are swept once every this many claims (a bounded delete on the created_at index). */
const SWEEP_EVERY = 100;

function isPost(route: RouteOptions) {
  return Array.isArray(route.method) ? route.method.includes('POST') : route.method === 'POST';
}

const asArray = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/** What seals one slot's answer: a key derived from the caller's credential secret and the slot, never stored. */
const answerBox = (request: FastifyRequest, slot: Slot) =>
  new SecretBox(`idempotency\n${request.credentialSecret}\n${slot.workspaceId}\n${slot.scope}\n${slot.key}`);

/**
 * `Idempotency-Key` on every POST of the scope (as Stripe has it). Requests without the header pay one
 * header lookup. The key is claimed after the request passed authentication, limits, permissions and
 * validation (so a 4xx there keeps nothing), and the answer is written before it is sent. Keys are
 * scoped by the credential (`idempotencyScopeOf`), so a replay only ever answers the caller that made it.
 */
export default fp(
  async function idempotency(app: FastifyInstance) {
    const { db, clock } = app.ctx;
    let claims = 0;
    app.decorateRequest('idempotencySlot', null);

    function claim(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      const key = request.headers[HEADER];
      if (typeof key !== 'string') return done();
      const principal = apiPrincipalOf(request.caller);
      const slot: Slot = { workspaceId: principal.workspaceId, scope: idempotencyScopeOf(principal), key };
      const now = clock.now();
      claimKey(db, slot, fingerprintOf(request.method, request.url, request.body), now).then((found) => {
        switch (found.kind) {
          case 'claimed':
            request.idempotencySlot = slot;
            if (++claims % SWEEP_EVERY === 0)
              sweepExpiredKeys(db, now).catch((error) => request.log.warn({ err: error }, 'idempotency sweep failed'));
            return done();
          case 'replay': {
            let body: string;
            try {
              body = answerBox(request, slot).open(found.sealedBody);
            } catch (error) {
              return done(error as Error); // not sealed for this credential: cannot happen within one scope
            }
            reply.code(found.statusCode).header('idempotent-replayed', 'true');
            // An empty answer (a 202 that stored nothing) is replayed empty, without a content type.
            if (body === '') reply.send();
            else reply.type('application/json; charset=utf-8').send(body);
            return;
          }
          case 'running':
            return done(errors.idempotencyKeyInUse());
          case 'mismatch':
            return done(errors.idempotencyKeyReused());
        }
      }, done);
    }

    const keepAnswer: onSendHookHandler = (request, reply, payload, done) => {
      const slot = request.idempotencySlot;
      if (slot === null) return done(null, payload);
      // A 400 from the service is a failed validation too: the key is given up, a corrected retry runs.
      const kept =
        reply.statusCode === 400
          ? releaseKey(db, slot)
          : recordAnswer(
              db,
              slot,
              reply.statusCode,
              answerBox(request, slot).seal(typeof payload === 'string' ? payload : String(payload ?? '')),
            );
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
