import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { objectFields } from '../../../db/rows.js';
import type { DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { InvoiceTemplatesTable, PricesTable, ProductsTable, SubscriptionTemplatesTable } from '../../../db/schema.js';
import type {
  InvoiceTemplate,
  Price,
  PriceListQuery,
  Product,
  ProductListQuery,
  SubscriptionTemplate,
  TemplateLine,
  TemplateListQuery,
} from './catalog.schemas.js';

// The catalog is the workspace's as a whole: no company narrows it (client sessions never reach its routes).

/** `name` as the case-insensitive filter finds it. */
const nameKeyOf = (name: string) => name.trim().toLowerCase();

function toProduct(row: ProductsTable): Product {
  return {
    ...objectFields(row, 'product'),
    name: row.name,
    description: row.description,
    status: row.status,
    imageUrls: JSON.parse(row.image_urls) as string[],
  };
}

function toPrice(row: PricesTable): Price {
  return {
    ...objectFields(row, 'price'),
    productId: row.product_id,
    amount: Number(row.amount), // bigint: PostgreSQL answers it as text
    currency: row.currency,
    type: row.type,
    interval: row.interval ?? undefined,
    intervalCount: row.interval_count ?? undefined,
  };
}

/** The fields both kinds of template answer; the tax percentage and quantities parse back to the numbers given. */
const templateFields = (row: InvoiceTemplatesTable) => ({
  name: row.name,
  memo: row.memo,
  taxPercentage: Number(row.tax_percentage),
  currency: row.currency,
  lineItems: JSON.parse(row.line_items) as TemplateLine[],
});

function toInvoiceTemplate(row: InvoiceTemplatesTable): InvoiceTemplate {
  return { ...objectFields(row, 'invoiceTemplate'), ...templateFields(row) };
}

function toSubscriptionTemplate(row: SubscriptionTemplatesTable): SubscriptionTemplate {
  return {
    ...objectFields(row, 'subscriptionTemplate'),
    ...templateFields(row),
    interval: row.interval,
    intervalCount: row.interval_count,
  };
}

/** The columns of a template, from what it answers. */
const templateColumns = (access: Access, template: InvoiceTemplate | SubscriptionTemplate) => ({
  id: template.id,
  workspace_id: access.workspaceId,
  name: template.name,
  memo: template.memo,
  tax_percentage: String(template.taxPercentage),
  currency: template.currency,
  line_items: JSON.stringify(template.lineItems),
  created_at: template.createdAt,
  updated_at: template.updatedAt,
});

// ---- products ----

export async function findProduct(db: Kysely<DB>, access: Access, id: string): Promise<Product | undefined> {
  const row = await db
    .selectFrom('products')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toProduct(row);
}

/** Newest first; `name` along the index (workspace_id, name_key, created_at, id). */
export function listProducts(db: Kysely<DB>, access: Access, query: ProductListQuery, tokens: PageTokens): Promise<Page<Product>> {
  let q = db.selectFrom('products').selectAll().where('products.workspace_id', '=', access.workspaceId);
  const nameKey = query.name === undefined ? undefined : nameKeyOf(query.name);
  if (nameKey !== undefined) q = q.where('products.name_key', '=', nameKey);
  return fetchPage(q, 'products', query, tokens, pageScope(access, 'products', { name: nameKey }), toProduct);
}

export function insertProduct(work: UnitOfWork, access: Access, product: Product): void {
  work.write(
    work.db.insertInto('products').values({
      id: product.id,
      workspace_id: access.workspaceId,
      name: product.name,
      name_key: nameKeyOf(product.name),
      description: product.description,
      status: product.status,
      image_urls: JSON.stringify(product.imageUrls),
      created_at: product.createdAt,
      updated_at: product.updatedAt,
    }),
  );
}

export function updateProduct(work: UnitOfWork, access: Access, product: Product): void {
  work.write(
    work.db
      .updateTable('products')
      .set({
        name: product.name,
        name_key: nameKeyOf(product.name),
        description: product.description,
        status: product.status,
        updated_at: product.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', product.id),
  );
}

// ---- prices ----

/** A price of the workspace as answered (also what an invoice line's priceId reads), or undefined. */
export async function findPrice(db: Kysely<DB>, access: Access, id: string): Promise<Price | undefined> {
  const row = await db
    .selectFrom('prices')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toPrice(row);
}

/** Newest first; `productId` along the index (workspace_id, product_id, created_at, id). */
export function listPrices(db: Kysely<DB>, access: Access, query: PriceListQuery, tokens: PageTokens): Promise<Page<Price>> {
  let q = db.selectFrom('prices').selectAll().where('prices.workspace_id', '=', access.workspaceId);
  if (query.productId !== undefined) q = q.where('prices.product_id', '=', query.productId);
  return fetchPage(q, 'prices', query, tokens, pageScope(access, 'prices', { productId: query.productId }), toPrice);
}

export function insertPrice(work: UnitOfWork, access: Access, price: Price): void {
  work.write(
    work.db.insertInto('prices').values({
      id: price.id,
      workspace_id: access.workspaceId,
      product_id: price.productId,
      amount: price.amount,
      currency: price.currency,
      type: price.type,
      interval: price.interval ?? null,
      interval_count: price.intervalCount ?? null,
      created_at: price.createdAt,
      updated_at: price.updatedAt,
    }),
  );
}

// ---- templates ----

/** An invoice template of the workspace as answered (what an invoice's templateId reads), or undefined. */
export async function findInvoiceTemplate(db: Kysely<DB>, access: Access, id: string): Promise<InvoiceTemplate | undefined> {
  const row = await db
    .selectFrom('invoice_templates')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toInvoiceTemplate(row);
}

/** A subscription template of the workspace as answered, or undefined. */
export async function findSubscriptionTemplate(db: Kysely<DB>, access: Access, id: string): Promise<SubscriptionTemplate | undefined> {
  const row = await db
    .selectFrom('subscription_templates')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toSubscriptionTemplate(row);
}

export function listInvoiceTemplates(
  db: Kysely<DB>,
  access: Access,
  query: TemplateListQuery,
  tokens: PageTokens,
): Promise<Page<InvoiceTemplate>> {
  const q = db.selectFrom('invoice_templates').selectAll().where('invoice_templates.workspace_id', '=', access.workspaceId);
  return fetchPage(q, 'invoice_templates', query, tokens, pageScope(access, 'invoiceTemplates'), toInvoiceTemplate);
}

export function listSubscriptionTemplates(
  db: Kysely<DB>,
  access: Access,
  query: TemplateListQuery,
  tokens: PageTokens,
): Promise<Page<SubscriptionTemplate>> {
  const q = db.selectFrom('subscription_templates').selectAll().where('subscription_templates.workspace_id', '=', access.workspaceId);
  return fetchPage(q, 'subscription_templates', query, tokens, pageScope(access, 'subscriptionTemplates'), toSubscriptionTemplate);
}

export function insertInvoiceTemplate(work: UnitOfWork, access: Access, template: InvoiceTemplate): void {
  work.write(work.db.insertInto('invoice_templates').values(templateColumns(access, template)));
}

export function insertSubscriptionTemplate(work: UnitOfWork, access: Access, template: SubscriptionTemplate): void {
  work.write(
    work.db
      .insertInto('subscription_templates')
      .values({ ...templateColumns(access, template), interval: template.interval, interval_count: template.intervalCount }),
  );
}
