import { validInput } from '../lib/validate.js';
import {
  createInvoiceTemplate,
  createPrice,
  createProduct,
  createSubscriptionTemplate,
  InvoiceTemplateCreate,
  PriceCreate,
  ProductCreate,
  ProductUpdate,
  SubscriptionTemplateCreate,
  updateProduct,
} from '../modules/resources/billing/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

// The catalog's commands: each input is the body its admin route takes (POST /admin/workspaces/{id}/…),
// checked by the same schema, then by the same service.

/** A numeric option's text as a number (the schema then judges it); text that is no number is a usage error. */
function numberOf(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new UsageError(`--${name} must be a number`);
  return Number(text);
}

/** `--line-items`: a JSON array of `{amount, description?, quantity}`. */
function lineItemsOption(values: Record<string, unknown>): unknown {
  const text = requireOption(values, 'line-items');
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--line-items must be JSON: [{"amount": 1000, "description": "…", "quantity": 1}, …]');
  }
}

const templateOptions = {
  workspace: { type: 'string' },
  name: { type: 'string' },
  'line-items': { type: 'string' },
  memo: { type: 'string' },
  'tax-percentage': { type: 'string' },
  currency: { type: 'string' },
} as const;

/** The template fields of the command line. */
const templateInput = (values: Record<string, string | undefined>) => ({
  name: requireOption(values, 'name'),
  lineItems: lineItemsOption(values),
  ...given({ memo: values.memo, taxPercentage: numberOf('tax-percentage', values['tax-percentage']), currency: values.currency }),
});

const created = (json: boolean, what: string, id: string) => printResult(json, { id }, `${what} ${id} created.`);

const productsGroup: CommandGroup = {
  create: command({
    usage: 'portal products create --workspace W --name N [--description D]',
    options: { workspace: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(ProductCreate, { name: requireOption(values, 'name'), ...given({ description: values.description }) });
      created(json, 'Product', (await createProduct(database, caller, input)).id);
    },
  }),
  update: command({
    usage: 'portal products update --workspace W --product P [--name N] [--description D] [--status active|archived]',
    options: {
      workspace: { type: 'string' },
      product: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      status: { type: 'string' },
    },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const productId = requireOption(values, 'product');
      const input = validInput(ProductUpdate, given({ name: values.name, description: values.description, status: values.status }));
      const product = await updateProduct(database, caller, productId, input);
      printResult(json, product, `Product ${product.id}: "${product.name}", ${product.status}.`);
    },
  }),
};

const pricesGroup: CommandGroup = {
  create: command({
    usage: 'portal prices create --workspace W --product P --amount CENTS [--currency C] [--interval I] [--interval-count N]',
    options: {
      workspace: { type: 'string' },
      product: { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      interval: { type: 'string' },
      'interval-count': { type: 'string' },
    },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(PriceCreate, {
        productId: requireOption(values, 'product'),
        amount: numberOf('amount', requireOption(values, 'amount')),
        ...given({
          currency: values.currency,
          interval: values.interval,
          intervalCount: numberOf('interval-count', values['interval-count']),
        }),
      });
      created(json, 'Price', (await createPrice(database, caller, input)).id);
    },
  }),
};

const invoiceTemplatesGroup: CommandGroup = {
  create: command({
    usage: 'portal invoice-templates create --workspace W --name N --line-items JSON [--memo M] [--tax-percentage T] [--currency C]',
    options: templateOptions,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(InvoiceTemplateCreate, templateInput(values));
      created(json, 'Invoice template', (await createInvoiceTemplate(database, caller, input)).id);
    },
  }),
};

const subscriptionTemplatesGroup: CommandGroup = {
  create: command({
    usage:
      'portal subscription-templates create --workspace W --name N --line-items JSON --interval I [--interval-count N] [--memo M] [--tax-percentage T] [--currency C]',
    options: { ...templateOptions, interval: { type: 'string' }, 'interval-count': { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(SubscriptionTemplateCreate, {
        ...templateInput(values),
        interval: requireOption(values, 'interval'),
        ...given({ intervalCount: numberOf('interval-count', values['interval-count']) }),
      });
      created(json, 'Subscription template', (await createSubscriptionTemplate(database, caller, input)).id);
    },
  }),
};

/** `portal products|prices|invoice-templates|subscription-templates …`, by command word. */
export const catalogGroups: Record<string, CommandGroup> = {
  products: productsGroup,
  prices: pricesGroup,
  'invoice-templates': invoiceTemplatesGroup,
  'subscription-templates': subscriptionTemplatesGroup,
};
