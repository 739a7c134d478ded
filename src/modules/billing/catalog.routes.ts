import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_WRITE_ERRORS, adminDoc, IdParams, Page, READ_ERRORS, WorkspaceParams } from '../../lib/schemas.js';
import {
  InvoiceTemplate,
  InvoiceTemplateCreate,
  Price,
  PriceCreate,
  PriceListQuery,
  Product,
  ProductAdminParams,
  ProductCreate,
  ProductListQuery,
  ProductUpdate,
  SubscriptionTemplate,
  SubscriptionTemplateCreate,
  TemplateListQuery,
} from './catalog.schemas.js';
import * as service from './catalog.service.js';

// Reads only under /v1, with the default policy: client sessions do not see the catalog (404); staff do.
// The catalog is made on the admin surface (and by `portal products|prices|…-templates`).
const tags = ['billing'];

/** Public read routes of the catalog: products, prices, invoice and subscription templates. */
export default async function catalogRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/products',
    {
      schema: {
        tags,
        summary: 'List products, newest first',
        querystring: ProductListQuery,
        response: { 200: Page(Product), ...READ_ERRORS },
      },
    },
    async (request) => service.listProducts(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/products/:id',
    { schema: { tags, summary: 'Retrieve a product', params: IdParams, response: { 200: Product, ...READ_ERRORS } } },
    async (request) => service.getProduct(database, request.caller, request.params.id),
  );
  app.get(
    '/prices',
    {
      schema: { tags, summary: 'List prices, newest first', querystring: PriceListQuery, response: { 200: Page(Price), ...READ_ERRORS } },
    },
    async (request) => service.listPrices(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/prices/:id',
    { schema: { tags, summary: 'Retrieve a price', params: IdParams, response: { 200: Price, ...READ_ERRORS } } },
    async (request) => service.getPrice(database, request.caller, request.params.id),
  );
  app.get(
    '/invoice-templates',
    {
      schema: {
        tags,
        summary: 'List invoice templates, newest first',
        querystring: TemplateListQuery,
        response: { 200: Page(InvoiceTemplate), ...READ_ERRORS },
      },
    },
    async (request) => service.listInvoiceTemplates(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/subscription-templates',
    {
      schema: {
        tags,
        summary: 'List subscription templates, newest first',
        querystring: TemplateListQuery,
        response: { 200: Page(SubscriptionTemplate), ...READ_ERRORS },
      },
    },
    async (request) => service.listSubscriptionTemplates(database, request.caller, request.query, pageTokens),
  );
}

/** Making the catalog on the admin surface (as `portal products|prices|invoice-templates|subscription-templates`). */
export async function catalogAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.post(
    '/workspaces/:workspaceId/products',
    {
      schema: {
        ...adminDoc,
        summary: 'Create a product (active): productCreated',
        params: WorkspaceParams,
        body: ProductCreate,
        response: { 200: Product, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createProduct(database, request.caller, request.body),
  );
  app.patch(
    '/workspaces/:workspaceId/products/:productId',
    {
      schema: {
        ...adminDoc,
        summary: 'Rename, describe, archive or reactivate a product: productUpdated with the previous values (none when nothing changed)',
        params: ProductAdminParams,
        body: ProductUpdate,
        response: { 200: Product, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.updateProduct(database, request.caller, request.params.productId, request.body),
  );
  app.post(
    '/workspaces/:workspaceId/prices',
    {
      schema: {
        ...adminDoc,
        summary: 'Create a price of a product: recurring with an interval, otherwise one-time; priceCreated',
        params: WorkspaceParams,
        body: PriceCreate,
        response: { 200: Price, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createPrice(database, request.caller, request.body),
  );
  app.post(
    '/workspaces/:workspaceId/invoice-templates',
    {
      schema: {
        ...adminDoc,
        summary: 'Create an invoice template (1–20 lines)',
        params: WorkspaceParams,
        body: InvoiceTemplateCreate,
        response: { 200: InvoiceTemplate, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createInvoiceTemplate(database, request.caller, request.body),
  );
  app.post(
    '/workspaces/:workspaceId/subscription-templates',
    {
      schema: {
        ...adminDoc,
        summary: 'Create a subscription template (1–20 lines, an interval)',
        params: WorkspaceParams,
        body: SubscriptionTemplateCreate,
        response: { 200: SubscriptionTemplate, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createSubscriptionTemplate(database, request.caller, request.body),
  );
}
