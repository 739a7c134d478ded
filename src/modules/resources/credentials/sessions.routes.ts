import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, ADMIN_WRITE_ERRORS, WorkspaceParams, adminDoc } from '../../../lib/schemas.js';
import { CreatedSession, RevokedSession, SessionCreate, SessionParams } from './sessions.schemas.js';
import * as service from './sessions.service.js';

/** Session tokens on the admin surface (registered under /admin by the admin plugin, behind its guard). */
export default async function sessionAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, config } = app.ctx;

  app.post(
    '/workspaces/:workspaceId/sessions',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateSession',
        summary: 'Mint an end-user session token for an app',
        description:
          'The token is what the official Node SDK decrypts with the app API key; the app then calls the API with ' +
          '`X-API-KEY: <workspaceId>/<appKey>/<tokenId>` and acts as that internal user or client (exempt from the daily quota, ' +
          `its own burst bucket). Sessions live ${config.sessionLifetimeSeconds} s (SESSION_LIFETIME_SECONDS) unless revoked, and die with the key. ` +
          'Recorded: sessionTokenMinted, or for a QA principal qaImpersonationTokenMinted (an impersonation); never the token.',
        params: WorkspaceParams,
        body: SessionCreate,
        response: { 200: CreatedSession, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) =>
      service.createSession(database, request.caller, request.body, {
        lifetimeSeconds: config.sessionLifetimeSeconds,
        baseUrl: config.portalUrl,
      }),
  );

  app.delete(
    '/workspaces/:workspaceId/sessions/:tokenId',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminRevokeSession',
        summary: 'Revoke a session',
        description: 'Every later request presenting the session is refused (401), on every server process.',
        params: SessionParams,
        response: { 200: RevokedSession, ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      await service.revokeSession(database, request.caller, request.params.tokenId);
      return { tokenId: request.params.tokenId, revoked: true as const };
    },
  );
}
