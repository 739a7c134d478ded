// The `portal` commands of billing and webhooks, as an operator runs them (contract §7: `--json` prints one
// JSON object): an invoice paid and voided from the command line, and a webhook endpoint managed, its
// deliveries listed and replayed. Each checks the same state the API answers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { oneJson, portal } from './helpers/cli.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`portal invoices and webhooks [${backend}]`, () => {
    test('invoices pay|void, webhooks create|list|disable|enable|rotate-secret|deliveries|replay|delete', {
      timeout: 120_000,
    }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const run = async (...args: string[]) => {
        const result = await portal(url, ...args, '--json');
        return { code: result.code, json: oneJson(result.stdout), stderr: result.stderr };
      };
      const ws = (await run('workspaces', 'create', '--name', 'Billing')).json;
      const W = ['--workspace', ws.workspaceId];
      const product = await run('products', 'create', ...W, '--name', 'Lamp');
      assert.equal(product.code, 0, JSON.stringify(product.json));

      // An invoice needs a company: created through the API of an app built on the same database.
      const { buildApp } = await import('../src/app.js');
      const { loadConfig } = await import('../src/config.js');
      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), { webhooks: false, subscriptionPollMs: false });
      t.after(() => app.close());
      const as = (method: 'POST' | 'GET', path: string, payload?: object) =>
        app.inject({ method, url: path, headers: { 'x-api-key': ws.apiKey }, ...(payload ? { payload } : {}) });
      const company = (await as('POST', '/v1/companies', { name: 'Acme' })).json();
      const invoice = (
        await as('POST', '/v1/invoices', { companyId: company.id, lineItems: [{ amount: 1250, quantity: 2 }], daysUntilDue: 7 })
      ).json();
      const paid = await run('invoices', 'pay', ...W, '--invoice', invoice.id);
      assert.deepEqual(
        [paid.code, paid.json.status, paid.json.number, typeof paid.json.paymentId],
        [0, 'paid', '0001', 'string'],
        `the invoice ${JSON.stringify(invoice)}; the command printed ${JSON.stringify(paid.json)} and said: ${paid.stderr}`,
      );
      const again = await run('invoices', 'void', ...W, '--invoice', invoice.id);
      assert.deepEqual([again.code, again.json.error.code, again.json.error.message], [1, 'conflict', 'A paid invoice cannot be voided.']);
      const payments = (await as('GET', `/v1/payments?invoiceId=${invoice.id}`)).json().data;
      assert.deepEqual(
        payments.map((p: { amount: number }) => p.amount),
        [2500],
      );

      process.env.PORTAL_WEBHOOKS_ALLOW_PRIVATE = '1';
      const created = await run('webhooks', 'create', ...W, '--url', 'http://127.0.0.1:9/hook', '--events', 'company.created,invoice.paid');
      assert.equal(created.code, 0, JSON.stringify(created.json));
      assert.match(created.json.secret, /^whsec_/);
      const E = ['--endpoint', created.json.id];
      const listed = await run('webhooks', 'list', ...W);
      assert.deepEqual(
        listed.json.data.map((e: { id: string; eventTypes: string[]; enabled: boolean }) => [e.id, e.eventTypes, e.enabled]),
        [[created.json.id, ['company.created', 'invoice.paid'], true]],
      );
      assert.equal((await run('webhooks', 'disable', ...W, ...E)).json.enabled, false);
      assert.equal((await run('webhooks', 'enable', ...W, ...E)).json.enabled, true);
      const rotated = await run('webhooks', 'rotate-secret', ...W, ...E);
      assert.notEqual(rotated.json.secret, created.json.secret);
      // No server ran: nothing was dispatched yet, so there is nothing to list or replay.
      assert.deepEqual((await run('webhooks', 'deliveries', ...W)).json, { data: [] });
      assert.deepEqual((await run('webhooks', 'replay', ...W, '--failed-since', '2026-01-01T00:00:00Z')).json, { replayed: 0 });
      const usage = await portal(url, 'webhooks', 'replay', ...W, '--json');
      assert.equal(usage.code, 2, 'neither --delivery nor --failed-since');
      const deleted = await run('webhooks', 'delete', ...W, ...E);
      assert.deepEqual(deleted.json, { id: created.json.id, object: 'webhookEndpoint', deleted: true });
      assert.deepEqual((await run('webhooks', 'list', ...W)).json.data, []);
    });
  });
}
