/**
 * The catalog, invoices (with their per-workspace counter), payments and subscriptions (modules/resources/billing).
 * Amounts are integer cents.
 */

interface InvoiceCountersTable {
  workspace_id: string;
  last_number: number;
}

export interface InvoicesTable {
  id: string;
  workspace_id: string;
  /** taken when the invoice is finalised: null while it is a draft */
  number: number | null;
  client_id: string | null;
  company_id: string;
  status: 'draft' | 'open' | 'paid' | 'void';
  /** JSON of the billing terms (modules/resources/billing/terms.ts): lines with their totals, memo, currency, tax, preferences */
  terms: string;
  subtotal: number;
  tax_amount: number;
  total: number;
  due_date: string;
  sent_date: string | null;
  billing_reason: 'manual' | 'subscriptionCycle';
  collection_method: 'sendInvoice' | 'chargeAutomatically';
  subscription_id: string | null;
  /** which period of its subscription it bills (0 = the first): unique per subscription */
  period_index: number | null;
  paid_at: string | null;
  voided_at: string | null;
  /** cents refunded (succeeded refunds) */
  amount_refunded: number;
  /** automatic collection: charges attempted so far, and when the next is due (null: none) */
  attempt_count: number;
  next_payment_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentsTable {
  id: string;
  workspace_id: string;
  invoice_id: string;
  status: 'succeeded' | 'failed';
  amount: number;
  /** manual or creditCard */
  payment_method: string;
  payment_method_id: string | null;
  brand: string | null;
  last4: string | null;
  /** a failed payment: why, and the processor's decline code */
  message: string | null;
  decline_code: string | null;
  /** the processor's charge reference (refunds name it) */
  processor_ref: string | null;
  /** cents refunded (succeeded refunds) */
  amount_refunded: number;
  created_at: string;
  updated_at: string;
}

/** A card on file for a client (client_id) or a company (client_id null): the processor's token, never the number. */
export interface PaymentMethodsTable {
  id: string;
  workspace_id: string;
  client_id: string | null;
  company_id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  processor_token: string;
  created_at: string;
  updated_at: string;
}

export interface RefundsTable {
  id: string;
  workspace_id: string;
  payment_id: string;
  invoice_id: string;
  /** the invoice's company: what a limited internal user may see */
  company_id: string;
  amount: number;
  currency: string;
  reason: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionsTable {
  id: string;
  workspace_id: string;
  client_id: string | null;
  company_id: string;
  status: 'notStarted' | 'active' | 'pastDue' | 'unpaid' | 'cancelled' | 'ended';
  /** JSON of the billing terms, as invoices hold them */
  terms: string;
  interval: 'day' | 'week' | 'month' | 'quarterly' | 'yearly';
  interval_count: number;
  collection_method: 'sendInvoice' | 'chargeAutomatically';
  /** Unix seconds */
  schedule_start: number;
  schedule_end: number | null;
  schedule_iterations: number | null;
  periods_billed: number;
  /** when the next period starts (to bill), or null when no period is left */
  next_period_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The billing catalog: amounts are integer cents; a template's tax percentage and lines are text, so they come back exactly as given. */
/** A recurring interval, stored normalised (quarter → quarterly, year → yearly). */
type CatalogInterval = 'day' | 'week' | 'month' | 'quarterly' | 'yearly';

export interface ProductsTable {
  id: string;
  workspace_id: string;
  name: string;
  /** lower(trim(name)): the `name` filter, exact but case-insensitive */
  name_key: string;
  description: string;
  status: 'active' | 'archived';
  /** JSON array of URLs */
  image_urls: string;
  created_at: string;
  updated_at: string;
}

export interface PricesTable {
  id: string;
  workspace_id: string;
  product_id: string;
  /** cents (bigint: PostgreSQL may answer it as a numeric string) */
  amount: number | string;
  /** lowercase ISO 4217 */
  currency: string;
  type: 'oneTime' | 'recurring';
  /** null for a one-time price */
  interval: CatalogInterval | null;
  interval_count: number | null;
  created_at: string;
  updated_at: string;
}

/** The columns both kinds of template have. */
interface TemplateColumns {
  id: string;
  workspace_id: string;
  name: string;
  memo: string;
  /** decimal text (at most 3 places), as given */
  tax_percentage: string;
  currency: string;
  /** JSON array of `{amount, description, quantity}` */
  line_items: string;
  created_at: string;
  updated_at: string;
}

export type InvoiceTemplatesTable = TemplateColumns;

export interface SubscriptionTemplatesTable extends TemplateColumns {
  interval: CatalogInterval;
  interval_count: number;
}

export interface BillingTables {
  invoice_counters: InvoiceCountersTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
  payment_methods: PaymentMethodsTable;
  refunds: RefundsTable;
  subscriptions: SubscriptionsTable;
  products: ProductsTable;
  prices: PricesTable;
  invoice_templates: InvoiceTemplatesTable;
  subscription_templates: SubscriptionTemplatesTable;
}
