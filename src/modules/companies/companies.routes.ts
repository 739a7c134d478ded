import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../lib/policy.js';
import { rejectReadOnly } from '../../lib/read-only.js';
import { AUTHENTICATED_ERRORS, DeletedBody, IdParams, Page, errorResponses } from '../../lib/schemas.js';
import { COMPANY_READ_ONLY, Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';
import * as service from './companies.service.js';

/** Client sessions see their companies (writes answer them 403); staff may not delete a company. */
const POLICY = {
  read: { clientSession: 'read' },
  change: { clientSession: 'read' },
  delete: { clientSession: 'read', staff: false },
} satisfies Record<string, RoutePolicy>;

const tags = ['companies'];
const READ_ERRORS = errorResponses(...AUTHENTICATED_ERRORS);
const WRITE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403, 409, 413, 415);

export default async function companyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/companies',
    { config: { policy: POLICY.read }, schema: { tags, summary: 'List companies', querystring: CompanyListQuery, response: { 200: Page(Company), ...READ_ERRORS } } },
    async (request) => service.listCompanies(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/companies',
    { config: { policy: POLICY.change }, schema: { tags, summary: 'Create a company', body: CompanyCreate, response: { 200: Company, ...WRITE_ERRORS } } },
    async (request) => service.createCompany(database, request.caller, request.body),
  );

  app.get(
    '/companies/:id',
    { config: { policy: POLICY.read }, schema: { tags, summary: 'Retrieve a company', params: IdParams, response: { 200: Company, ...READ_ERRORS } } },
    async (request) => service.getCompany(database, request.caller, request.params.id),
  );

  app.patch(
    '/companies/:id',
    {
      config: { policy: POLICY.change },
      preValidation: rejectReadOnly(COMPANY_READ_ONLY),
      schema: { tags, summary: 'Update a company (customFields merged key by key)', params: IdParams, body: CompanyUpdate, response: { 200: Company, ...WRITE_ERRORS } },
    },
    async (request) => service.updateCompany(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/companies/:id',
    {
      config: { policy: POLICY.delete },
      schema: {
        tags,
        summary: 'Delete a company; its clients without another company move to new placeholder companies',
        params: IdParams,
        response: { 200: DeletedBody, ...errorResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => service.deleteCompany(database, request.caller, request.params.id),
  );
}
