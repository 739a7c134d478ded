import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, Page, READ_ERRORS } from '../../../lib/schemas.js';
import { CustomField, CustomFieldListQuery, CustomFieldOption, CustomFieldOptionListQuery } from './custom-fields.schemas.js';
import * as service from './custom-fields.service.js';

const tags = ['custom-fields'];

/** Read-only: definitions are created with `portal custom-fields create` (contract §7). Keys and staff only. */
export default async function customFieldRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/custom-fields',
    {
      schema: {
        tags,
        operationId: 'listCustomFields',
        summary: 'List custom field definitions',
        description:
          'The definitions of clients’ and companies’ custom fields (created with `portal custom-fields create`); filter ' +
          '`entityType`. Client sessions get a 404.',
        querystring: CustomFieldListQuery,
        response: { 200: Page(CustomField), ...READ_ERRORS },
      },
    },
    async (request) => service.listCustomFields(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/custom-fields/:id/options',
    {
      schema: {
        tags,
        operationId: 'listCustomFieldOptions',
        summary: "List a custom field's options",
        description:
          'The options of a multiSelect field, in the order they were given; filter `label`. An unknown field is a 404. Client ' +
          'sessions get a 404.',
        params: IdParams,
        querystring: CustomFieldOptionListQuery,
        response: { 200: Page(CustomFieldOption), ...READ_ERRORS },
      },
    },
    async (request) => service.listOptions(database, request.caller, request.params.id, request.query, pageTokens),
  );
}
