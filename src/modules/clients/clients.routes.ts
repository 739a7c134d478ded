import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../lib/policy.js';
import { rejectReadOnly } from '../../lib/read-only.js';
import { AUTHENTICATED_ERRORS, DeletedBody, IdParams, Page, errorResponses } from '../../lib/schemas.js';
import { CLIENT_READ_ONLY, Client, ClientCreate, ClientCreateQuery, ClientListQuery, ClientReplace, ClientUpdate } from './clients.schemas.js';
import * as service from './clients.service.js';

/** Client sessions see themselves (writes answer them 403); staff may not delete a client. */
const POLICY = {
  read: { clientSession: 'read' },
  change: { clientSession: 'read' },
  delete: { clientSession: 'read', staff: false },
} satisfies Record<string, RoutePolicy>;

const tags = ['clients'];
const READ_ERRORS = errorResponses(...AUTHENTICATED_ERRORS);
const WRITE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403, 409, 413, 415);
const readOnly = rejectReadOnly(CLIENT_READ_ONLY);
const emailReadOnly = rejectReadOnly(['email'], 'cannot be changed');

export default async function clientRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, config } = app.ctx;

  app.get(
    '/clients',
    { config: { policy: POLICY.read }, schema: { tags, summary: 'List clients', querystring: ClientListQuery, response: { 200: Page(Client), ...READ_ERRORS } } },
    async (request) => service.listClients(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/clients',
    {
      config: { policy: POLICY.change },
      preValidation: readOnly,
      schema: { tags, summary: 'Create a client', querystring: ClientCreateQuery, body: ClientCreate, response: { 200: Client, ...WRITE_ERRORS } },
    },
    async (request) => service.createClient(database, request.caller, request.body, { sendInvite: request.query.sendInvite, portalUrl: config.portalUrl }),
  );

  app.get(
    '/clients/:id',
    { config: { policy: POLICY.read }, schema: { tags, summary: 'Retrieve a client', params: IdParams, response: { 200: Client, ...READ_ERRORS } } },
    async (request) => service.getClient(database, request.caller, request.params.id),
  );

  app.patch(
    '/clients/:id',
    {
      config: { policy: POLICY.change },
      preValidation: [readOnly, emailReadOnly],
      schema: { tags, summary: 'Update a client: given fields merged, customFields key by key', params: IdParams, body: ClientUpdate, response: { 200: Client, ...WRITE_ERRORS } },
    },
    async (request) => service.updateClient(database, request.caller, request.params.id, request.body),
  );

  app.put(
    '/clients/:id',
    {
      config: { policy: POLICY.change },
      preValidation: [readOnly, emailReadOnly],
      schema: { tags, summary: 'Replace every writable field of a client', params: IdParams, body: ClientReplace, response: { 200: Client, ...WRITE_ERRORS } },
    },
    async (request) => service.replaceClient(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/clients/:id',
    {
      config: { policy: POLICY.delete },
      schema: { tags, summary: 'Delete a client permanently', params: IdParams, response: { 200: DeletedBody, ...errorResponses(...AUTHENTICATED_ERRORS, 403) } },
    },
    async (request) => service.deleteClient(database, request.caller, request.params.id),
  );
}
