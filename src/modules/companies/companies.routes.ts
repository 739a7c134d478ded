import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { accessOf } from '../../lib/access.js';
import { rejectReadOnly } from '../../lib/read-only.js';
import { AUTHENTICATED_ERRORS, DeletedBody, IdParams, Page, errorResponses } from '../../lib/schemas.js';
import { actorOf } from '../../plugins/auth.js';
import { COMPANY_READ_ONLY, Company, CompanyCreate, CompanyListQuery, CompanyUpdate } from './companies.schemas.js';
import * as service from './companies.service.js';

const tags = ['companies'];
const WRITE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403, 409, 413, 415);

export default async function companyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, pageTokens } = app.ctx;

  app.get(
    '/companies',
    { config: { clientSession: true }, schema: { tags, summary: 'List companies', querystring: CompanyListQuery, response: { 200: Page(Company), ...errorResponses(...AUTHENTICATED_ERRORS) } } },
    async (request) => service.listCompanies(db, accessOf(request.principal), request.query, pageTokens),
  );

  app.post(
    '/companies',
    { config: { clientSession: true }, schema: { tags, summary: 'Create a company', body: CompanyCreate, response: { 200: Company, ...WRITE_ERRORS } } },
    async (request) => service.createCompany(db, accessOf(request.principal), actorOf(request, clock.now()), request.body),
  );

  app.get(
    '/companies/:id',
    { config: { clientSession: true }, schema: { tags, summary: 'Retrieve a company', params: IdParams, response: { 200: Company, ...errorResponses(...AUTHENTICATED_ERRORS) } } },
    async (request) => service.getCompany(db, accessOf(request.principal), request.params.id),
  );

  app.patch(
    '/companies/:id',
    {
      config: { clientSession: true },
      preValidation: rejectReadOnly(COMPANY_READ_ONLY),
      schema: { tags, summary: 'Update a company (customFields merged key by key)', params: IdParams, body: CompanyUpdate, response: { 200: Company, ...WRITE_ERRORS } },
    },
    async (request) =>
      service.updateCompany(db, accessOf(request.principal), actorOf(request, clock.now()), request.params.id, request.body),
  );

  app.delete(
    '/companies/:id',
    {
      config: { action: 'companies:delete', clientSession: true },
      schema: {
        tags,
        summary: 'Delete a company; its clients without another company move to new placeholder companies',
        params: IdParams,
        response: { 200: DeletedBody, ...errorResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => service.deleteCompany(db, accessOf(request.principal), actorOf(request, clock.now()), request.params.id),
  );
}
