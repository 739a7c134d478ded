import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { accessOf } from '../../lib/access.js';
import { AUTHENTICATED_ERRORS, Page, errorResponses } from '../../lib/schemas.js';
import {
  CustomField,
  CustomFieldListQuery,
  CustomFieldOption,
  CustomFieldOptionListQuery,
  CustomFieldParams,
} from './custom-fields.schemas.js';
import { listCustomFields, listOptions } from './custom-fields.service.js';

/** Read-only: definitions are created with `portal custom-fields create` (contract §7). */
export default async function customFieldRoutes(app: FastifyInstance) {
  app.get<{ Querystring: Static<typeof CustomFieldListQuery> }>(
    '/custom-fields',
    {
      schema: {
        tags: ['custom-fields'],
        summary: 'List custom field definitions',
        querystring: CustomFieldListQuery,
        response: { 200: Page(CustomField), ...errorResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const { limit, nextToken, entityType } = request.query;
      const { workspaceId } = accessOf(request.principal);
      return listCustomFields(app.ctx.db, workspaceId, { entityType }, app.ctx.pageTokens, { limit, nextToken });
    },
  );

  app.get<{ Params: Static<typeof CustomFieldParams>; Querystring: Static<typeof CustomFieldOptionListQuery> }>(
    '/custom-fields/:id/options',
    {
      schema: {
        tags: ['custom-fields'],
        summary: "List a custom field's options",
        params: CustomFieldParams,
        querystring: CustomFieldOptionListQuery,
        response: { 200: Page(CustomFieldOption), ...errorResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const { limit, nextToken, label } = request.query;
      const { workspaceId } = accessOf(request.principal);
      return listOptions(app.ctx.db, workspaceId, request.params.id, { label }, app.ctx.pageTokens, { limit, nextToken });
    },
  );
}
