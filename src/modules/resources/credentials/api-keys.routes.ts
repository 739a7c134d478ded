import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, ADMIN_WRITE_ERRORS, WorkspaceParams, adminDoc } from '../../../lib/schemas.js';
import { ApiKeyCreate, ApiKeyList, ApiKeyParams, CreatedApiKey, RevokedApiKey } from './api-keys.schemas.js';
import * as service from './api-keys.service.js';

/** A workspace's API keys on the admin surface (what `portal keys` does). */
export async function apiKeyAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.get(
    '/workspaces/:workspaceId/keys',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminListApiKeys',
        summary: "List a workspace's API keys",
        description: 'Every key, revoked ones too, oldest first; never a secret (only its hash is stored).',
        params: WorkspaceParams,
        response: { 200: ApiKeyList, ...ADMIN_ERRORS },
      },
    },
    async (request) => ({ data: await service.listApiKeys(database, request.caller) }),
  );

  app.post(
    '/workspaces/:workspaceId/keys',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateApiKey',
        summary: 'Create an API key',
        description: 'A workspace key, or with `appId` an app key. The key is in this answer only.',
        params: WorkspaceParams,
        body: ApiKeyCreate,
        response: { 201: CreatedApiKey, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) => {
      const { appId, label } = request.body;
      const caller = request.caller;
      const { kind: _kind, ...created } = await service.createApiKey(database, caller, { kind: appId ? 'app' : 'workspace', appId, label });
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/workspaces/:workspaceId/keys/:keyId',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminRevokeApiKey',
        summary: 'Revoke an API key',
        description: 'Its bearer tokens and sessions die with it; every server process refuses it within AUTH_CACHE_TTL_MS.',
        params: ApiKeyParams,
        response: { 200: RevokedApiKey, ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const apiKeyId = request.params.keyId;
      await service.revokeApiKey(database, request.caller, apiKeyId);
      return { apiKeyId, revoked: true as const };
    },
  );
}
