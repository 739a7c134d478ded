import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, ADMIN_WRITE_ERRORS, DeletedBody, Page, WorkspaceParams, adminDoc } from '../../../lib/schemas.js';
import {
  QaAgentToken,
  QaAgentTokenCreate,
  QaImpersonationToken,
  QaImpersonationTokenCreate,
  QaPrincipal,
  QaPrincipalCreate,
  QaPrincipalListQuery,
  QaPrincipalParams,
} from './qa.schemas.js';
import * as service from './qa.service.js';

const RULES =
  'A QA principal is a client or internal user of the workspace marked for testing; to the rest of the API it is an ordinary ' +
  'client or internal user (not hidden from lists). Only a QA principal can be impersonated through this surface.';

/** The QA surface for app developers (admin, behind the admin plugin's guard): QA principals, their tokens, agent tokens. */
export default async function qaAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, config, pageTokens } = app.ctx;

  app.get(
    '/workspaces/:workspaceId/qa/principals',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminListQaPrincipals',
        summary: 'List QA principals, newest first',
        description: RULES,
        params: WorkspaceParams,
        querystring: QaPrincipalListQuery,
        response: { 200: Page(QaPrincipal), ...ADMIN_ERRORS },
      },
    },
    async (request) => service.listQaPrincipals(database, request.caller, request.query, pageTokens),
  );
  app.post(
    '/workspaces/:workspaceId/qa/principals',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateQaPrincipal',
        summary: 'Mark a client or internal user as a QA principal: qaPrincipalCreated',
        description: `${RULES} Exactly one of clientId and internalUserId; 404 for a person this workspace does not have, 409 when already marked.`,
        params: WorkspaceParams,
        body: QaPrincipalCreate,
        response: { 201: QaPrincipal, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createQaPrincipal(database, request.caller, request.body)),
  );
  app.get(
    '/workspaces/:workspaceId/qa/principals/:principalId',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminRetrieveQaPrincipal',
        summary: 'Retrieve a QA principal',
        description: RULES,
        params: QaPrincipalParams,
        response: { 200: QaPrincipal, ...ADMIN_ERRORS },
      },
    },
    async (request) => service.getQaPrincipal(database, request.caller, request.params.principalId),
  );
  app.delete(
    '/workspaces/:workspaceId/qa/principals/:principalId',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminDeleteQaPrincipal',
        summary: 'Remove a QA principal and revoke its sessions: qaPrincipalDeleted',
        description:
          'The mark is removed and every live session of the client or internal user is revoked (refused with 401 from now on, on ' +
          'every server process); the client or internal user itself stays. Deleting the person removes the mark too (no event).',
        params: QaPrincipalParams,
        response: { 200: DeletedBody, ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      await service.deleteQaPrincipal(database, request.caller, request.params.principalId);
      return { id: request.params.principalId, object: 'qaPrincipal', deleted: true as const };
    },
  );
  app.post(
    '/workspaces/:workspaceId/qa/principals/:principalId/tokens',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateQaImpersonationToken',
        summary: 'Mint an impersonation session token for a QA principal: qaImpersonationTokenMinted',
        description:
          'The session token `portal sessions create` mints, for a QA principal only (404 for anyone else): the app presents it as ' +
          `\`X-API-KEY: <workspaceId>/<appKey>/<tokenId>\` and acts as that client or internal user for ${config.sessionLifetimeSeconds} s ` +
          '(SESSION_LIFETIME_SECONDS) unless revoked. The token is answered only now and never recorded.',
        params: QaPrincipalParams,
        body: QaImpersonationTokenCreate,
        response: { 201: QaImpersonationToken, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await service.mintImpersonationToken(database, request.caller, request.params.principalId, request.body, {
          lifetimeSeconds: config.sessionLifetimeSeconds,
          baseUrl: config.portalUrl,
        }),
      ),
  );
  app.post(
    '/workspaces/:workspaceId/qa/agent-tokens',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateQaAgentToken',
        summary: 'Mint a short-lived bearer token for an app acting as an agent: qaAgentBearerMinted',
        description:
          'A bearer token with the rights of one of the workspace’s app keys (as POST /v1/token gives, without the key itself), ' +
          'living `lifetimeSeconds` (60–3600, default 900). Refused (401) once expired or once the key is revoked.',
        params: WorkspaceParams,
        body: QaAgentTokenCreate,
        response: { 201: QaAgentToken, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send(await service.mintAgentToken(database, request.caller, request.body)),
  );
}
