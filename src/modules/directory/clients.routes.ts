import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import type { RoutePolicy } from '../../lib/policy.js';
import { rejectReadOnly } from '../../lib/read-only.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../lib/schemas.js';
import {
  CLIENT_READ_ONLY,
  Client,
  ClientCreate,
  ClientCreateQuery,
  ClientListQuery,
  ClientReplace,
  ClientUpdate,
} from './clients.schemas.js';
import * as service from './clients.service.js';

/** Client sessions reach these routes to see themselves (writes answer them 403); staff may not delete a client. */
const SEEN_BY_CLIENTS: RoutePolicy = { clientSession: 'read' };
const ADMIN_DELETES: RoutePolicy = { clientSession: 'read', staff: false };

const tags = ['clients'];
const readOnly = rejectReadOnly(CLIENT_READ_ONLY);
const emailReadOnly = rejectReadOnly(['email'], 'cannot be changed');

/** PATCH and PUT: server-managed fields and the email refused, before the body is validated. */
const change = <Body extends TSchema>(summary: string, body: Body) => ({
  config: { policy: SEEN_BY_CLIENTS },
  preValidation: [readOnly, emailReadOnly],
  schema: { tags, summary, params: IdParams, body, response: { 200: Client, ...WRITE_ERRORS } },
});

export default async function clientRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, config } = app.ctx;

  app.get(
    '/clients',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: { tags, summary: 'List clients', querystring: ClientListQuery, response: { 200: Page(Client), ...READ_ERRORS } },
    },
    async (request) => service.listClients(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/clients',
    {
      config: { policy: SEEN_BY_CLIENTS },
      preValidation: readOnly,
      schema: {
        tags,
        summary: 'Create a client',
        querystring: ClientCreateQuery,
        body: ClientCreate,
        response: { 200: Client, ...WRITE_ERRORS },
      },
    },
    async (request) =>
      service.createClient(database, request.caller, request.body, { sendInvite: request.query.sendInvite, portalUrl: config.portalUrl }),
  );

  app.get(
    '/clients/:id',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: { tags, summary: 'Retrieve a client', params: IdParams, response: { 200: Client, ...READ_ERRORS } },
    },
    async (request) => service.getClient(database, request.caller, request.params.id),
  );

  app.patch('/clients/:id', change('Update a client: given fields merged, customFields key by key', ClientUpdate), async (request) =>
    service.updateClient(database, request.caller, request.params.id, request.body),
  );

  app.put('/clients/:id', change('Replace every writable field of a client', ClientReplace), async (request) =>
    service.replaceClient(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/clients/:id',
    {
      config: { policy: ADMIN_DELETES },
      schema: { tags, summary: 'Delete a client permanently', params: IdParams, response: { 200: DeletedBody, ...DELETE_ERRORS } },
    },
    async (request) => service.deleteClient(database, request.caller, request.params.id),
  );
}
