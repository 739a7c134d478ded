import type { Database } from '../../../db/database.js';
import { type Caller, systemCaller } from '../../../lib/caller.js';
import {
  createInvoice,
  createInvoiceTemplate,
  createPrice,
  createProduct,
  createSubscription,
  createSubscriptionTemplate,
  markPaid,
} from '../../resources/billing/index.js';
import { createClient, createCompany } from '../../resources/directory/index.js';
import { createCustomField } from '../../resources/custom-fields/index.js';
import { createConnection, createInstall, declareNotificationSettings } from '../../resources/installs/index.js';
import { createInternalUser } from '../../resources/internal-users/index.js';
import { createNotification } from '../../resources/notifications/index.js';

/** What `portal seed` made, by kind. */
export interface SeededDemo {
  customFields: number;
  companies: number;
  clients: number;
  internalUsers: number;
  installs: number;
  notifications: number;
  products: number;
  prices: number;
  templates: number;
  invoices: number;
  subscriptions: number;
}

const COMPANIES = [
  ['Northwind Traders', 'Retail'],
  ['Blue Harbor Legal', 'Legal'],
  ['Summit Dental Group', 'Health'],
  ['Fernwood Architects', 'Design'],
] as const;
const PEOPLE = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Katherine', 'Johnson'],
  ['Edsger', 'Dijkstra'],
  ['Barbara', 'Liskov'],
  ['Donald', 'Knuth'],
  ['Margaret', 'Hamilton'],
] as const;

/**
 * Fills a workspace with realistic demo data through the same services as the API (so every rule,
 * event and webhook applies): custom fields, companies and their clients, internal users, an app with
 * notification settings and a manual install with a connection, notifications, a catalog, invoices (one
 * paid) and subscriptions. Run on a workspace more than once, it adds another set (e-mails are unique).
 */
export async function seedDemo(database: Database, workspaceId: string, now: number, portalUrl: string): Promise<SeededDemo> {
  const caller: Caller = systemCaller(workspaceId, now);
  const tag = now.toString(36);
  await createCustomField(database, caller, { entityType: 'client', key: `tier_${tag}`, name: 'Tier', type: 'text' });
  await createCustomField(database, caller, { entityType: 'company', key: `industry_${tag}`, name: 'Industry', type: 'text' });
  const companies = [];
  for (const [name, industry] of COMPANIES) {
    companies.push(await createCompany(database, caller, { name: `${name} ${tag}`, customFields: { [`industry_${tag}`]: industry } }));
  }
  const clients = [];
  for (const [index, [givenName, familyName]] of PEOPLE.entries()) {
    const company = companies[index % companies.length];
    const email = `${givenName}.${familyName}.${tag}@example.com`.toLowerCase();
    clients.push(
      await createClient(
        database,
        caller,
        { email, givenName, familyName, companyId: company.id, customFields: { [`tier_${tag}`]: index % 3 === 0 ? 'gold' : 'silver' } },
        { portalUrl },
      ),
    );
  }
  const admin = await createInternalUser(database, caller, {
    email: `owner.${tag}@example.com`,
    givenName: 'Olivia',
    familyName: 'Owner',
    role: 'admin',
  });
  await createInternalUser(database, caller, { email: `staff.${tag}@example.com`, givenName: 'Sam', familyName: 'Staff', role: 'staff' });
  await createInternalUser(database, caller, {
    email: `partner.${tag}@example.com`,
    givenName: 'Pat',
    familyName: 'Partner',
    role: 'staff',
    companyAccessList: [companies[0].id],
  });
  const app = await createInstall(database, caller, {
    type: 'custom',
    name: 'Project tracker',
    appId: '8f14e45f-ceea-4672-8b55-6d8f1e2a7c31',
  });
  await declareNotificationSettings(database, caller, app.id, {
    notifications: [
      { id: 'task-assigned', label: 'A task is assigned to you', surfaces: ['product', 'email'], default: { product: true, email: true } },
      { id: 'weekly-digest', label: 'Weekly digest', surfaces: ['email'] },
    ],
  });
  const docs = await createInstall(database, caller, { type: 'manual', name: 'Shared documents' });
  await createConnection(database, caller, docs.id, { type: 'link', content: 'https://example.com/handbook', companyId: companies[0].id });
  const mail = { portalUrl };
  const notices = [
    {
      senderId: admin.id,
      recipientClientId: clients[0].id,
      deliveryTargets: { inProduct: { title: 'Welcome to your portal', body: 'Everything is here.' } },
    },
    { senderId: clients[1].id, recipientInternalUserId: admin.id, deliveryTargets: { inProduct: { title: 'Grace uploaded a document' } } },
    { senderId: admin.id, recipientCompanyId: companies[2].id, deliveryTargets: { inProduct: { title: 'New invoice available' } } },
  ];
  for (const notice of notices) await createNotification(database, caller, notice, mail);
  const retainer = await createProduct(database, caller, { name: `Monthly retainer ${tag}`, description: 'Ongoing advisory work' });
  const audit = await createProduct(database, caller, { name: `Annual audit ${tag}`, description: 'Year-end review' });
  const monthly = await createPrice(database, caller, { productId: retainer.id, amount: 150_000, interval: 'month' });
  await createPrice(database, caller, { productId: retainer.id, amount: 1_500_000, interval: 'year' });
  const once = await createPrice(database, caller, { productId: audit.id, amount: 450_000 });
  await createInvoiceTemplate(database, caller, {
    name: 'Consulting hours',
    lineItems: [{ amount: 12_500, quantity: 8, description: 'Consulting (hours)' }],
    taxPercentage: 8.25,
    memo: 'Thank you for your business.',
  });
  await createSubscriptionTemplate(database, caller, {
    name: 'Retainer',
    lineItems: [{ amount: 150_000, quantity: 1, description: 'Monthly retainer' }],
    interval: 'month',
  });
  const invoices = [];
  for (const [index, company] of companies.slice(0, 3).entries()) {
    invoices.push(
      await createInvoice(database, caller, {
        companyId: company.id,
        lineItems: [
          { priceId: once.id, quantity: 1, description: 'Annual audit' },
          { amount: 12_500, quantity: 2.5 + index, description: 'Extra hours' },
        ],
        taxPercentage: 8.25,
        daysUntilDue: 14,
        paymentMethodPreferences: [{ type: 'creditCard', feePaidByClient: false }],
      }),
    );
  }
  await markPaid(database, caller, invoices[0].id);
  for (const company of companies.slice(0, 2)) {
    await createSubscription(database, caller, {
      companyId: company.id,
      lineItems: [{ priceId: monthly.id, quantity: 1, description: 'Monthly retainer' }],
      daysUntilDue: 7,
      interval: 'month',
    });
  }
  return {
    customFields: 2,
    companies: companies.length,
    clients: clients.length,
    internalUsers: 3,
    installs: 2,
    notifications: notices.length,
    products: 2,
    prices: 3,
    templates: 2,
    invoices: invoices.length,
    subscriptions: 2,
  };
}
