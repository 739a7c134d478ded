import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../lib/policy.js';
import { rejectReadOnly } from '../../lib/read-only.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../lib/schemas.js';
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
      schema: { tags, summary: 'List companies', querystring: CompanyListQuery, response: { 200: Page(Company), ...READ_ERRORS } },
    },
    async (request) => service.listCompanies(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/companies',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: { tags, summary: 'Create a company', body: CompanyCreate, response: { 200: Company, ...WRITE_ERRORS } },
    },
    async (request) => service.createCompany(database, request.caller, request.body),
  );

  app.get(
    '/companies/:id',
    {
      config: { policy: SEEN_BY_CLIENTS },
      schema: { tags, summary: 'Retrieve a company', params: IdParams, response: { 200: Company, ...READ_ERRORS } },
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
        summary: 'Update a company (customFields merged key by key)',
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
        summary: 'Delete a company; its clients without another company move to new placeholder companies',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteCompany(database, request.caller, request.params.id),
  );
}
