import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_WRITE_ERRORS, adminDoc, IdParams, Page, READ_ERRORS, WorkspaceParams } from '../../../lib/schemas.js';
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
        operationId: 'listProducts',
        summary: 'List products, newest first',
        description:
          'The catalog; filter `name` (exact, case-insensitive). Products are made on the admin surface. Client ' + 'sessions get a 404.',
        querystring: ProductListQuery,
        response: { 200: Page(Product), ...READ_ERRORS },
      },
    },
    async (request) => service.listProducts(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/products/:id',
    {
      schema: {
        tags,
        operationId: 'retrieveProduct',
        summary: 'Retrieve a product',
        description: 'Client sessions get a 404.',
        params: IdParams,
        response: { 200: Product, ...READ_ERRORS },
      },
    },
    async (request) => service.getProduct(database, request.caller, request.params.id),
  );
  app.get(
    '/prices',
    {
      schema: {
        tags,
        operationId: 'listPrices',
        summary: 'List prices, newest first',
        description: 'Filter `productId`. A one-time price has no `interval` nor `intervalCount`. Client sessions get a 404.',
        querystring: PriceListQuery,
        response: { 200: Page(Price), ...READ_ERRORS },
      },
    },
    async (request) => service.listPrices(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/prices/:id',
    {
      schema: {
        tags,
        operationId: 'retrievePrice',
        summary: 'Retrieve a price',
        description: 'A one-time price has no `interval` nor `intervalCount`. Client sessions get a 404.',
        params: IdParams,
        response: { 200: Price, ...READ_ERRORS },
      },
    },
    async (request) => service.getPrice(database, request.caller, request.params.id),
  );
  app.get(
    '/invoice-templates',
    {
      schema: {
        tags,
        operationId: 'listInvoiceTemplates',
        summary: 'List invoice templates, newest first',
        description: 'Templates an invoice may be created from (`templateId`), made on the admin surface. Client sessions get a 404.',
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
        operationId: 'listSubscriptionTemplates',
        summary: 'List subscription templates, newest first',
        description: 'Templates a subscription may be created from, made on the admin surface. Client sessions get a 404.',
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
        operationId: 'adminCreateProduct',
        summary: 'Create a product (active): productCreated',
        description: '`{name, description?, imageUrls?}`; the product is active. As `portal products create`.',
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
        operationId: 'adminUpdateProduct',
        summary: 'Rename, describe, archive or reactivate a product: productUpdated with the previous values (none when nothing changed)',
        description: '`{name?, description?, status?}` (status `active` or `archived`). As `portal products update`.',
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
        operationId: 'adminCreatePrice',
        summary: 'Create a price of a product: recurring with an interval, otherwise one-time; priceCreated',
        description:
          '`{productId, amount, currency?, interval?, intervalCount?}` (`quarter` and `year` accepted as intervals). As `portal ' +
          'prices create`.',
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
        operationId: 'adminCreateInvoiceTemplate',
        summary: 'Create an invoice template (1–20 lines)',
        description: '`{name, lineItems, memo?, taxPercentage?, currency?}`. As `portal invoice-templates create`.',
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
        operationId: 'adminCreateSubscriptionTemplate',
        summary: 'Create a subscription template (1–20 lines, an interval)',
        description: 'As an invoice template, with `interval` and `intervalCount?`. As `portal subscription-templates create`.',
        params: WorkspaceParams,
        body: SubscriptionTemplateCreate,
        response: { 200: SubscriptionTemplate, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createSubscriptionTemplate(database, request.caller, request.body),
  );
}
