import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { accessOf } from '../../lib/access.js';
import { rejectReadOnly } from '../../lib/read-only.js';
import { AUTHENTICATED_ERRORS, DeletedBody, IdParams, Page, errorResponses } from '../../lib/schemas.js';
import { actorOf } from '../../plugins/auth.js';
import { CLIENT_READ_ONLY, Client, ClientCreate, ClientCreateQuery, ClientListQuery, ClientPatch, ClientPut } from './clients.schemas.js';
import * as service from './clients.service.js';

const tags = ['clients'];
const READ_ERRORS = errorResponses(...AUTHENTICATED_ERRORS);
const WRITE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403, 409, 413, 415);
const readOnly = rejectReadOnly(CLIENT_READ_ONLY);
const emailReadOnly = rejectReadOnly(['email'], 'cannot be changed');
/** PATCH and PUT: reachable by client sessions (to answer them 403), server-managed fields and email refused. */
const CHANGE = { config: { clientSession: true }, preValidation: [readOnly, emailReadOnly] };

export default async function clientRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, pageTokens, config } = app.ctx;

  app.get(
    '/clients',
    { config: { clientSession: true }, schema: { tags, summary: 'List clients', querystring: ClientListQuery, response: { 200: Page(Client), ...READ_ERRORS } } },
    async (request) => service.listClients(db, accessOf(request.principal), request.query, pageTokens),
  );

  app.post(
    '/clients',
    {
      config: { clientSession: true },
      preValidation: readOnly,
      schema: { tags, summary: 'Create a client', querystring: ClientCreateQuery, body: ClientCreate, response: { 200: Client, ...WRITE_ERRORS } },
    },
    async (request) =>
      service.createClient(db, accessOf(request.principal), actorOf(request, clock.now()), request.body, {
        sendInvite: request.query.sendInvite,
        portalUrl: config.portalUrl,
      }),
  );

  app.get(
    '/clients/:id',
    { config: { clientSession: true }, schema: { tags, summary: 'Retrieve a client', params: IdParams, response: { 200: Client, ...READ_ERRORS } } },
    async (request) => service.getClient(db, accessOf(request.principal), request.params.id),
  );

  app.patch(
    '/clients/:id',
    {
      ...CHANGE,
      schema: { tags, summary: 'Update a client: given fields merged, customFields key by key', params: IdParams, body: ClientPatch, response: { 200: Client, ...WRITE_ERRORS } },
    },
    async (request) => service.patchClient(db, accessOf(request.principal), actorOf(request, clock.now()), request.params.id, request.body),
  );

  app.put(
    '/clients/:id',
    {
      ...CHANGE,
      schema: { tags, summary: 'Replace every writable field of a client', params: IdParams, body: ClientPut, response: { 200: Client, ...WRITE_ERRORS } },
    },
    async (request) => service.replaceClient(db, accessOf(request.principal), actorOf(request, clock.now()), request.params.id, request.body),
  );

  app.delete(
    '/clients/:id',
    { config: { action: 'clients:delete', clientSession: true }, schema: { tags, summary: 'Delete a client permanently', params: IdParams, response: { 200: DeletedBody, ...errorResponses(...AUTHENTICATED_ERRORS, 403) } } },
    async (request) => service.deleteClient(db, accessOf(request.principal), actorOf(request, clock.now()), request.params.id),
  );
}
