import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { errors } from '../../../lib/errors.js';
import { ADMIN_WRITE_ERRORS, adminDoc, errorResponses, WorkspaceParams } from '../../../lib/schemas.js';
import { BearerToken } from './tokens.schemas.js';
import { mintBearerToken, mintOperatorToken } from './tokens.service.js';

/** One documented error of this operation, with its own description. */
const own = (status: number, description: string): Record<number, TSchema> => ({
  [status]: { ...errorResponses(status)[status], description } as TSchema,
});

/** The token takes no body: any declared body is a 400, before parsing and whatever its content type. */
async function refuseBody(request: FastifyRequest) {
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) {
    throw errors.badRequest('POST /v1/token takes no body: send only the app API key, in X-API-KEY.', [
      { path: 'body', message: 'must be absent' },
    ]);
  }
}

/** POST /v1/token (an encapsulated plugin: it accepts a bodiless request whatever its Content-Type). */
export default async function tokenRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;
  // Bodies are refused before parsing; an empty one with `Content-Type: application/json` (as HTTP clients
  // often send on a bodiless POST) is then no body at all rather than a JSON error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.post(
    '/token',
    {
      config: { policy: { clientSession: 'read', portal: false } }, // so that a client session is told 403 (not 404), like every other non-key caller
      preParsing: async (request, _reply, payload) => {
        await refuseBody(request);
        return payload;
      },
      schema: {
        tags: ['token'],
        operationId: 'createToken',
        summary: 'Mint a bearer token from an app API key',
        description:
          'Exchanges the app API key in `X-API-KEY` (no body) for a bearer token with the same rights, for cron jobs and background workers. ' +
          'Send it as `Authorization: Bearer <token>`. It lives one hour (`tokenExpiresAt`, Unix seconds); mint a new one on expiry. ' +
          "It is refused (401) once expired or once its key is revoked. Bearer requests share their key's burst bucket and count against the daily quota like it.",
        security: [{ apiKey: [] }],
        response: {
          200: BearerToken,
          ...own(400, 'A body was sent: this operation takes none'),
          ...own(401, 'Missing, unknown or revoked API key'),
          ...own(403, 'Not an app key: workspace keys (and bearer tokens, sessions) do not mint tokens'),
          ...errorResponses(429, 500, 503),
        },
      },
    },
    async (request) => mintBearerToken(database, request.caller),
  );
}

/** The operator's one-hour token for a workspace (admin surface): what the admin console calls /v1 with. */
export async function tokenAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.post(
    '/workspaces/:workspaceId/tokens',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateToken',
        summary: "Mint a bearer token with the workspace's full rights",
        description:
          'One hour, sent as `Authorization: Bearer <token>` to the public API with the rights of a workspace key. ' +
          'It is minted for the workspace key labelled `console` (made on first use; its own secret is never shown): ' +
          'revoking that key ends every such token. Its requests share that key’s burst bucket and count against the daily quota.',
        params: WorkspaceParams,
        response: { 201: BearerToken, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send(await mintOperatorToken(database, request.caller)),
  );
}
