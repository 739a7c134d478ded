import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { rejectReadOnly } from '../../../lib/read-only.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { COMPANY_READ_ONLY, Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';
import * as service from './companies.service.js';

/** Client sessions reach these routes to see their companies (writes answer them 403); staff may not delete a company. */
const SEEN_BY_CLIENTS: RoutePolicy = { clientSession: 'read' };
const ADMIN_DELETES: RoutePolicy = { clientSession: 'read', staff: false };

const tags = ['companies'];

export default async function companyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/companies',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'listCompanies',
        summary: 'List companies',
        description:
          'Newest first. Filters: `name`, `isPlaceholder`. `q` searches: the companies with a word of their name starting with it, ' +
          'case-insensitively, with the other filters (a 400 naming `query.q` past 100 characters or for white space alone). A ' +
          'client session sees its own companies; an internal user limited to some companies sees those, and finds only those.',
        querystring: CompanyListQuery,
        response: { 200: Page(Company), ...READ_ERRORS },
      },
    },
    async (request) => service.listCompanies(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/companies',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'createCompany',
        summary: 'Create a company',
        description:
          'A name is unique in the workspace, case-insensitively (a 409 naming it). Records companyCreated. A client session gets a 403.',
        body: CompanyCreate,
        response: { 200: Company, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createCompany(database, request.caller, request.body),
  );

  app.get(
    '/companies/:id',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: {
        tags,
        operationId: 'retrieveCompany',
        summary: 'Retrieve a company',
        description: 'A company the caller sees (a client session: its own); any other id is a 404.',
        params: IdParams,
        response: { 200: Company, ...READ_ERRORS },
      },
    },
    async (request) => service.getCompany(database, request.caller, request.params.id),
  );

  app.patch(
    '/companies/:id',
    {
      config: { policy: SEEN_BY_CLIENTS },
      preValidation: rejectReadOnly(COMPANY_READ_ONLY),
      schema: {
        tags,
        operationId: 'updateCompany',
        summary: 'Update a company (customFields merged key by key)',
        description:
          'The fields given are changed, the others kept; `customFields` merged key by key ("", [] or null clears one). A name ' +
          'already taken is a 409. Records companyUpdated and companyCustomFieldsUpdated for what changed. A client session gets a 403.',
        params: IdParams,
        body: CompanyUpdate,
        response: { 200: Company, ...WRITE_ERRORS },
      },
    },
    async (request) => service.updateCompany(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/companies/:id',
    {
      config: { policy: ADMIN_DELETES },
      schema: {
        tags,
        operationId: 'deleteCompany',
        summary: 'Delete a company; its clients without another company move to new placeholder companies',
        description:
          'Each of its clients with no other company moves into a new placeholder company; a client with others keeps them. What ' +
          'belongs to the company alone (its channels, notes and notifications) goes with it. An internal user with the staff role ' +
          'and a client session get a 403. Records companyDeleted.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteCompany(database, request.caller, request.params.id),
  );
}
