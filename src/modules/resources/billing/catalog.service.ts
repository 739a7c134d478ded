import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { recordAudit } from '../../../audit/index.js';
import { newRowId } from '../../../lib/row-id.js';
import { QUANTITY_PLACES, TAX_PLACES, scaled } from './money.js';
import { DEFAULT_CURRENCY, normalInterval } from './periods.js';
import * as repo from './catalog.repository.js';
import type {
  InvoiceTemplate,
  InvoiceTemplateCreate,
  Price,
  PriceCreate,
  Product,
  ProductCreate,
  ProductUpdate,
  SubscriptionTemplate,
  SubscriptionTemplateCreate,
} from './catalog.schemas.js';

/** A product or a price as the subject of its audit entries (and the data of their webhooks). */
const productSubject = (product: Product) => ({ object: 'product', id: product.id, data: product });
const priceSubject = (price: Price) => ({ object: 'price', id: price.id, data: price });

const throwIfAny = (problems: FieldProblem[]) => {
  if (problems.length > 0) throw errors.invalidFields(problems);
};

// ---- products ----

export const listProducts = listAs(repo.listProducts);

export async function getProduct(database: Database, caller: Caller, id: string): Promise<Product> {
  return orNotFound(await repo.findProduct(database.db, caller.access, id), 'Product');
}

/** A new (active) product: productCreated. */
export async function createProduct(database: Database, caller: Caller, input: ProductCreate): Promise<Product> {
  const { access, actor } = caller;
  const at = isoAt(actor.at);
  const product: Product = {
    id: newRowId(),
    object: 'product',
    createdAt: at,
    updatedAt: at,
    name: input.name.trim(),
    description: input.description ?? '',
    status: 'active',
    imageUrls: input.imageUrls ?? [],
  };
  return unitOfWork(database, async (work) => {
    repo.insertProduct(work, access, product);
    recordAudit(work, actor, {
      eventType: 'productCreated',
      description: `Product "${product.name}" created`,
      context: { productId: product.id, name: product.name },
      subject: productSubject(product),
    });
    return product;
  });
}

/** Renames, describes, archives or reactivates a product: productUpdated with what it was; nothing changed, nothing recorded. */
export async function updateProduct(database: Database, caller: Caller, id: string, input: ProductUpdate): Promise<Product> {
  const { access, actor } = caller;
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findProduct(work.db, access, id), 'Product');
      const next = {
        name: input.name?.trim() ?? previous.name,
        description: input.description ?? previous.description,
        status: input.status ?? previous.status,
      };
      const previousAttributes: Partial<typeof next> = {};
      for (const key of ['name', 'description', 'status'] as const) {
        if (next[key] !== previous[key]) Object.assign(previousAttributes, { [key]: previous[key] });
      }
      if (Object.keys(previousAttributes).length === 0) return previous;
      const product: Product = { ...previous, ...next, updatedAt: isoAt(actor.at) };
      repo.updateProduct(work, access, product);
      recordAudit(work, actor, {
        eventType: 'productUpdated',
        description: `Product "${product.name}" updated`,
        context: { productId: product.id },
        previousAttributes,
        subject: productSubject(product),
      });
      return product;
    },
    { transaction: true },
  );
}

// ---- prices ----

export const listPrices = listAs(repo.listPrices);

export async function getPrice(database: Database, caller: Caller, id: string): Promise<Price> {
  return orNotFound(await repo.findPrice(database.db, caller.access, id), 'Price');
}

/** A price of a product: recurring when an interval is given (intervalCount default 1), else one-time. priceCreated. */
export async function createPrice(database: Database, caller: Caller, input: PriceCreate): Promise<Price> {
  const { access, actor } = caller;
  const problems: FieldProblem[] = [];
  const product = await repo.findProduct(database.db, access, input.productId);
  if (!product) problems.push({ path: 'body.productId', message: 'is not a product of this workspace' });
  if (input.interval === undefined && input.intervalCount !== undefined) {
    problems.push({ path: 'body.intervalCount', message: 'is allowed only with interval (a recurring price)' });
  }
  // No product means a problem was named.
  if (problems.length > 0 || !product) throw errors.invalidFields(problems);
  const at = isoAt(actor.at);
  const recurring = input.interval !== undefined;
  const price: Price = {
    id: newRowId(),
    object: 'price',
    createdAt: at,
    updatedAt: at,
    productId: product.id,
    amount: input.amount,
    currency: input.currency?.toLowerCase() ?? DEFAULT_CURRENCY,
    type: recurring ? 'recurring' : 'oneTime',
    // A one-time price has neither (left out of the answer, absent is absent).
    interval: input.interval === undefined ? undefined : normalInterval(input.interval),
    intervalCount: recurring ? (input.intervalCount ?? 1) : undefined,
  };
  return unitOfWork(database, async (work) => {
    repo.insertPrice(work, access, price);
    recordAudit(work, actor, {
      eventType: 'priceCreated',
      description: `Price of ${price.amount} ${price.currency} created for product "${product.name}"`,
      context: { priceId: price.id, productId: price.productId },
      subject: priceSubject(price),
    });
    return price;
  });
}

// ---- templates ----

export const listInvoiceTemplates = listAs(repo.listInvoiceTemplates);

export const listSubscriptionTemplates = listAs(repo.listSubscriptionTemplates);

/**
 * What a schema cannot say about a template: the tax percentage has at most 3 decimals, each quantity at
 * most 4 (read as decimal text, as invoices read them). Every problem named.
 */
function templateProblems(input: InvoiceTemplateCreate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.taxPercentage !== undefined && scaled(input.taxPercentage, TAX_PLACES) === null) {
    problems.push({ path: 'body.taxPercentage', message: `has more than ${TAX_PLACES} decimals` });
  }
  for (const [index, line] of input.lineItems.entries()) {
    if (scaled(line.quantity, QUANTITY_PLACES) === null) {
      problems.push({ path: `body.lineItems.${index}.quantity`, message: `has more than ${QUANTITY_PLACES} decimals` });
    }
  }
  return problems;
}

/** The fields both kinds of template store, defaults applied. */
function templateOf(caller: Caller, input: InvoiceTemplateCreate) {
  const at = isoAt(caller.actor.at);
  return {
    id: newRowId(),
    createdAt: at,
    updatedAt: at,
    name: input.name.trim(),
    memo: input.memo ?? '',
    taxPercentage: input.taxPercentage ?? 0,
    currency: input.currency?.toLowerCase() ?? DEFAULT_CURRENCY,
    lineItems: input.lineItems.map((line) => ({ amount: line.amount, description: line.description ?? '', quantity: line.quantity })),
  };
}

/** An invoice template (no event: the specification has none for templates). */
export async function createInvoiceTemplate(database: Database, caller: Caller, input: InvoiceTemplateCreate): Promise<InvoiceTemplate> {
  throwIfAny(templateProblems(input));
  const template: InvoiceTemplate = { object: 'invoiceTemplate', ...templateOf(caller, input) };
  await unitOfWork(database, async (work) => repo.insertInvoiceTemplate(work, caller.access, template));
  return template;
}

/** A subscription template: a template with its interval (quarter and year normalised; intervalCount default 1). */
export async function createSubscriptionTemplate(
  database: Database,
  caller: Caller,
  input: SubscriptionTemplateCreate,
): Promise<SubscriptionTemplate> {
  throwIfAny(templateProblems(input));
  const template: SubscriptionTemplate = {
    object: 'subscriptionTemplate',
    ...templateOf(caller, input),
    interval: normalInterval(input.interval),
    intervalCount: input.intervalCount ?? 1,
  };
  await unitOfWork(database, async (work) => repo.insertSubscriptionTemplate(work, caller.access, template));
  return template;
}
