import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import type { RoutePolicy } from '../../../lib/policy.js';
import { rejectReadOnly } from '../../../lib/read-only.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
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
const change = <Body extends TSchema>(doc: { operationId: string; summary: string; description: string }, body: Body) => ({
  config: { policy: SEEN_BY_CLIENTS },
  preValidation: [readOnly, emailReadOnly],
  schema: { tags, ...doc, params: IdParams, body, response: { 200: Client, ...WRITE_ERRORS } },
});
const UPDATE = {
  operationId: 'updateClient',
  summary: 'Update a client: given fields merged, customFields key by key',
  description:
    'The fields given are changed, the others kept; `customFields` merged key by key ("", [] or null clears one). `email` cannot be ' +
    'changed and server-managed fields are read-only (400s). Records clientUpdated and clientCustomFieldsUpdated for what changed ' +
    '(nothing when nothing did). A client session gets a 403.',
};
const REPLACE = {
  operationId: 'updateAClientDestructive',
  summary: 'Replace every writable field of a client',
  description:
    'A writable field left out is cleared. Without `companyId` the client keeps its own placeholder company when that is its only ' +
    'company, else gets a new one. `email` cannot be changed (400). Records clientUpdated and clientCustomFieldsUpdated for what ' +
    'changed. A client session gets a 403.',
};

export default async function clientRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, config } = app.ctx;

  app.get(
    '/clients',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'listClients',
        summary: 'List clients',
        description:
          'Newest first. Filters: `email` (case-insensitive), `companyId` (any of the client’s companies), `givenName`, `familyName`; ' +
          'an empty filter filters nothing. `q` searches: the clients with a word of their name ("given family") starting with it, ' +
          'or whose e-mail address does, case-insensitively, with the other filters (a 400 naming `query.q` past 100 characters or ' +
          'for white space alone). A client session sees itself; an internal user limited to some companies sees their clients, ' +
          'and finds only those.',
        querystring: ClientListQuery,
        response: { 200: Page(Client), ...READ_ERRORS },
      },
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
        operationId: 'createClient',
        summary: 'Create a client',
        description:
          'Without `companyId` the client gets a new placeholder company named after it. `sendInvite=true` sets status `invited` and ' +
          'answers a one-time `inviteUrl`, in this answer only. An email already used in the workspace (case-insensitively) is a 409; ' +
          'a server-managed field is a 400 (read-only). Records clientCreated. A client session gets a 403.',
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
      schema: {
        tags,
        operationId: 'retrieveClient',
        summary: 'Retrieve a client',
        description: 'A client the caller sees (a client session: itself); any other id is a 404.',
        params: IdParams,
        response: { 200: Client, ...READ_ERRORS },
      },
    },
    async (request) => service.getClient(database, request.caller, request.params.id),
  );

  app.post(
    '/clients/:id/invite',
    {
      schema: {
        tags,
        operationId: 'inviteClient',
        summary: 'Send a client its invite (again)',
        description:
          'A new one-time `inviteUrl` (in this answer only, and e-mailed to the client through the outbox), valid for 7 days; ' +
          'any earlier link stops working. The client becomes `invited`. A client that has already accepted an invite ' +
          '(`active`) is a 409. Records clientInvited. A client session gets a 404.',
        params: IdParams,
        response: { 200: Client, ...WRITE_ERRORS },
      },
    },
    async (request) => service.resendInvite(database, request.caller, request.params.id, config.portalUrl),
  );

  app.patch('/clients/:id', change(UPDATE, ClientUpdate), async (request) =>
    service.updateClient(database, request.caller, request.params.id, request.body),
  );

  app.put('/clients/:id', change(REPLACE, ClientReplace), async (request) =>
    service.replaceClient(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/clients/:id',
    {
      config: { policy: ADMIN_DELETES },
      schema: {
        tags,
        operationId: 'deleteClient',
        summary: 'Delete a client permanently',
        description:
          'For good; what belongs to the client alone (its notes, the notifications addressed to it, its individual channels) goes ' +
          'with it. An internal user with the staff role and a client session get a 403. Records clientDeleted.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteClient(database, request.caller, request.params.id),
  );
}
