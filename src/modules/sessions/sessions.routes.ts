import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { systemCaller } from '../../lib/caller.js';
import { errorResponses } from '../../lib/schemas.js';
import { CreatedSession, RevokedSession, SessionCreate, SessionParams, WorkspaceParams } from './sessions.schemas.js';
import * as service from './sessions.service.js';

const tags = ['admin'];
const security = [{ adminToken: [] }];
const ADMIN_ERRORS = [400, 401, 404, 429, 500, 503];

/** Session tokens on the admin surface (registered under /admin by the admin plugin, behind its guard). */
export default async function sessionAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock, config } = app.ctx;
  // The operator acts on the named workspace as the system; an id of no workspace is a 404.
  const operatorOn = (workspaceId: string) => systemCaller(workspaceId.toLowerCase(), clock.now());

  app.post(
    '/workspaces/:workspaceId/sessions',
    {
      schema: {
        tags,
        security,
        summary: 'Mint an end-user session token for an app',
        description:
          'The token is what the official Node SDK decrypts with the app API key; the app then calls the API with ' +
          '`X-API-KEY: <workspaceId>/<appKey>/<tokenId>` and acts as that internal user or client (exempt from the daily quota, ' +
          `its own burst bucket). Sessions live ${config.sessionLifetimeSeconds} s (SESSION_LIFETIME_SECONDS) unless revoked, and die with the key.`,
        params: WorkspaceParams,
        body: SessionCreate,
        response: { 200: CreatedSession, ...errorResponses(...ADMIN_ERRORS, 413, 415) },
      },
    },
    async (request) =>
      service.createSession(database, operatorOn(request.params.workspaceId), request.body, {
        lifetimeSeconds: config.sessionLifetimeSeconds,
        baseUrl: config.portalUrl,
      }),
  );

  app.delete(
    '/workspaces/:workspaceId/sessions/:tokenId',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a session',
        description: 'Every later request presenting the session is refused (401), on every server process.',
        params: SessionParams,
        response: { 200: RevokedSession, ...errorResponses(...ADMIN_ERRORS) },
      },
    },
    async (request) => {
      await service.revokeSession(database, operatorOn(request.params.workspaceId), request.params.tokenId);
      return { tokenId: request.params.tokenId.toLowerCase(), revoked: true as const };
    },
  );
}
