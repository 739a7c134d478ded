import { APPS_ONLY } from '../../../lib/policy.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SecretBox } from '../../../lib/secret-box.js';
import { DELETE_ERRORS, DeletedBody, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import {
  AppApiResource,
  AppApiResourceListQuery,
  AppApiResourceParams,
  AppApiResourceReplace,
  AppBuilderSecret,
} from './app-api.schemas.js';
import * as service from './app-api.service.js';

const tags = ['app-api'];

const WHO =
  'An app is its app API key in `X-API-KEY` (or a bearer token minted from it), the key made with an `appId`. Everything is scoped ' +
  "to that app in that workspace: another app's or another workspace's resources are 404. A workspace key or an internal-user " +
  'session lists every app’s resources (filter `appId`) but has no names of its own (404 on a name); client sessions get 404.';

/**
 * App API resources: the resources a portal app's own API exposes, declared by the app (one PUT per resource,
 * idempotent), and the secret its builder signs with (rotated by POST, answered once).
 */
export default async function appApiRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;
  const box = new SecretBox(app.ctx.secrets.appBuilder);

  app.get(
    '/app-api-resources',
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'listAppApiResources',
        summary: "List the calling app's API resources, newest first",
        description: WHO,
        querystring: AppApiResourceListQuery,
        response: { 200: Page(AppApiResource), ...READ_ERRORS },
      },
    },
    async (request) => service.listResources(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/app-api-resources/:name',
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'retrieveAppApiResource',
        summary: 'Retrieve one of the calling app’s API resources',
        description: WHO,
        params: AppApiResourceParams,
        response: { 200: AppApiResource, ...READ_ERRORS },
      },
    },
    async (request) => service.getResource(database, request.caller, request.params.name),
  );
  app.put(
    '/app-api-resources/:name',
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'putAppApiResource',
        summary: 'Declare or replace an API resource of the calling app: appApiResourceRegistered (201) or appApiResourceUpdated (200)',
        description:
          'The body is the whole declaration `{methods, description?, path?}`: a description or path left out is cleared. ' +
          `A new name is registered (201); a known one replaced (200; no event when nothing changed). ${WHO}`,
        params: AppApiResourceParams,
        body: AppApiResourceReplace,
        response: { 200: AppApiResource, 201: AppApiResource, ...WRITE_ERRORS },
      },
    },
    async (request, reply) => {
      const { created, resource } = await service.putResource(database, request.caller, request.params.name, request.body);
      return reply.code(created ? 201 : 200).send(resource);
    },
  );
  app.delete(
    '/app-api-resources/:name',
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'deleteAppApiResource',
        summary: 'Delete an API resource of the calling app: appApiResourceDeleted',
        description: WHO,
        params: AppApiResourceParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => {
      const resource = await service.deleteResource(database, request.caller, request.params.name);
      return { id: resource.id, object: 'appApiResource', deleted: true as const };
    },
  );
  app.post(
    '/app-builder-secret',
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'rotateAppBuilderSecret',
        summary: 'Rotate the secret the calling app’s builder signs with: appBuilderSecretUpdated',
        description:
          'Takes no body. Makes a new secret (`pbs_` + 43 characters), replacing the app’s earlier one at once, and answers it this once: ' +
          'it is stored sealed (AES-256-GCM under a server key), never recorded and never shown again; rotate to replace a lost one. ' +
          'Only an app has one: any other caller gets 403.',
        response: { 200: AppBuilderSecret, ...WRITE_ERRORS },
      },
    },
    async (request) => service.rotateBuilderSecret(database, box, request.caller),
  );
}
