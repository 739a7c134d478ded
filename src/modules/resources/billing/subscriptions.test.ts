import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { adminRequest, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, TestClock, adminHarness, freshDatabaseUrl } from '../../../../test/helpers/harness.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (isoTime: string) => Date.parse(isoTime) / 1000;

async function invoicesOf(h: Harness, apiKey: string, subscriptionId: string) {
  const res = await h.as(apiKey, { method: 'GET', url: '/v1/invoices?limit=1000' });
  return (res.json().data as Record<string, any>[]).filter((i) => i.subscriptionId === subscriptionId).reverse();
}

async function setup(t: Parameters<typeof adminHarness>[0], backend: (typeof BACKENDS)[number], opts: object = {}) {
  const h = await adminHarness(t, backend, { webhooks: false, subscriptionPollMs: 20, ...opts });
  const w = await populatedWorkspace(h);
  const subscribe = async (payload: object) => {
    const res = await h.as(w.ws.apiKey, {
      method: 'POST',
      url: '/v1/subscriptions',
      payload: { clientId: w.client.id, lineItems: [{ amount: 4900, quantity: 1, description: 'Plan' }], daysUntilDue: 7, ...payload },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  return { h, ...w, subscribe };
}

for (const backend of BACKENDS) {
  describe(`subscriptions bill themselves [${backend}]`, () => {
    test('interval is optional, as the SDK declares it: a recurring price gives its cycle; with none to give, a 400 naming body.interval', async (t) => {
      const { h, ws, client, subscribe } = await setup(t, backend);
      const made = async (path: string, payload: object) =>
        (await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}${path}`, payload)).json();
      const product = await made('/products', { name: 'Retainer' });
      const price = await made('/prices', { productId: product.id, amount: 5000, interval: 'week', intervalCount: 2 });
      const byPrice = await subscribe({ lineItems: [{ priceId: price.id, quantity: 1 }] });
      assert.deepEqual([byPrice.interval, byPrice.intervalCount], ['week', 2]);
      const none = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/subscriptions',
        payload: { clientId: client.id, lineItems: [{ amount: 4900, quantity: 1 }], daysUntilDue: 7 },
      });
      assert.deepEqual(
        [none.statusCode, none.json().data],
        [400, [{ path: 'body.interval', message: 'is required: neither a subscription template nor a recurring price gives one' }]],
      );
    });

    test('a year of monthly billing is exactly 12 invoices, one per period, dated each period’s start', async (t) => {
      const { h, ws, subscribe } = await setup(t, backend);
      const subscription = await subscribe({ interval: 'month' });
      assert.deepEqual([subscription.status, subscription.interval, subscription.intervalCount], ['active', 'month', 1]);
      await heldWithin(5000, 'the first period billed at once', async () => (await invoicesOf(h, ws.apiKey, subscription.id)).length === 1);
      h.clock.advance(365 * DAY - 1);
      await heldWithin(10_000, 'a year billed', async () => (await invoicesOf(h, ws.apiKey, subscription.id)).length === 12);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const invoices = await invoicesOf(h, ws.apiKey, subscription.id);
      assert.equal(invoices.length, 12, 'not 13: the next period starts a year after the first');
      assert.deepEqual(
        invoices.map((i) => i.createdAt.slice(0, 10)),
        [
          '2026-01-15',
          '2026-02-15',
          '2026-03-15',
          '2026-04-15',
          '2026-05-15',
          '2026-06-15',
          '2026-07-15',
          '2026-08-15',
          '2026-09-15',
          '2026-10-15',
          '2026-11-15',
          '2026-12-15',
        ],
      );
      assert.ok(invoices.every((i) => i.billingReason === 'subscriptionCycle' && i.total === 4900 && i.status === 'open'));
      assert.equal(invoices[1].dueDate, iso(Date.parse('2026-02-15T12:00:00.000Z') + 7 * DAY));
      const after = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/subscriptions/${subscription.id}` })).json();
      assert.deepEqual([after.periodsBilled, after.nextBillingDate], [12, '2027-01-15T12:00:00.000Z']);
    });

    test('started on 31 January: billed on 28 February and 31 March; notStarted until then', async (t) => {
      const { h, ws, subscribe } = await setup(t, backend);
      const subscription = await subscribe({ interval: 'month', scheduleStartDate: seconds('2026-01-31T00:00:00.000Z') });
      assert.equal(subscription.status, 'notStarted');
      h.clock.ms = Date.parse('2026-03-31T00:00:00.000Z');
      await heldWithin(5000, 'three periods', async () => (await invoicesOf(h, ws.apiKey, subscription.id)).length === 3);
      assert.deepEqual(
        (await invoicesOf(h, ws.apiKey, subscription.id)).map((i) => i.createdAt),
        ['2026-01-31T00:00:00.000Z', '2026-02-28T00:00:00.000Z', '2026-03-31T00:00:00.000Z'],
      );
    });

    test('iterations and an end date stop it; cancellation stops further invoices and is a 409 the second time', async (t) => {
      const { h, ws, subscribe } = await setup(t, backend);
      const three = await subscribe({ interval: 'week', scheduleIterations: 3 });
      const ended = await subscribe({ interval: 'quarter', intervalCount: 1, scheduleEndDate: seconds(iso(NOON + 100 * DAY)) });
      const cancelled = await subscribe({ interval: 'day', intervalCount: 2 });
      assert.equal(ended.interval, 'quarterly', 'quarter is quarterly');
      await heldWithin(5000, 'first periods', async () => (await invoicesOf(h, ws.apiKey, cancelled.id)).length === 1);
      h.clock.advance(2 * DAY);
      await heldWithin(5000, 'second period', async () => (await invoicesOf(h, ws.apiKey, cancelled.id)).length === 2);
      const cancel = await h.as(ws.apiKey, { method: 'POST', url: `/v1/subscriptions/${cancelled.id}/cancel` });
      assert.deepEqual(
        [cancel.statusCode, cancel.json().status, cancel.json().cancelledAt, cancel.json().canceledAt],
        [200, 'cancelled', iso(NOON + 2 * DAY), iso(NOON + 2 * DAY)],
      );
      const again = await h.as(ws.apiKey, { method: 'POST', url: `/v1/subscriptions/${cancelled.id}/cancel` });
      assert.equal(again.statusCode, 409);
      h.clock.advance(200 * DAY);
      await heldWithin(5000, 'three weeks billed', async () => (await invoicesOf(h, ws.apiKey, three.id)).length === 3);
      await heldWithin(5000, 'two quarters before the end date', async () => (await invoicesOf(h, ws.apiKey, ended.id)).length === 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await invoicesOf(h, ws.apiKey, cancelled.id)).length, 2, 'nothing after the cancellation');
      const statuses = await Promise.all(
        [three, ended].map(async (s) => (await h.as(ws.apiKey, { method: 'GET', url: `/v1/subscriptions/${s.id}` })).json().status),
      );
      assert.deepEqual(statuses, ['ended', 'ended']);
      const events = (await h.as(ws.apiKey, { method: 'GET', url: '/v1/audit-logs?eventType=subscriptionCancelled' })).json().data;
      assert.equal(events.length, 1);
    });

    test('two processes on one database never bill a period twice; a stopped server catches up when it starts', async (t) => {
      const clock = new TestClock();
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const first = await adminHarness(t, backend, { databaseUrl, clock, webhooks: false, subscriptionPollMs: 20 });
      const second = await adminHarness(t, backend, { databaseUrl, clock, webhooks: false, subscriptionPollMs: 20 });
      const { ws, client } = await populatedWorkspace(first);
      for (let i = 0; i < 5; i++) {
        const res = await first.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/subscriptions',
          payload: { clientId: client.id, lineItems: [{ amount: 100, quantity: 1 }], daysUntilDue: 1, interval: 'day' },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      clock.advance(30 * DAY - 1);
      const count = async () => (await first.as(ws.apiKey, { method: 'GET', url: '/v1/invoices?limit=1000' })).json().data.length;
      await heldWithin(20_000, '5 × 30 periods', async () => (await count()) === 150);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await count(), 150, 'none twice');
      const numbers = (await first.as(ws.apiKey, { method: 'GET', url: '/v1/invoices?limit=1000' }))
        .json()
        .data.map((i: { number: string }) => i.number);
      assert.equal(new Set(numbers).size, 150, 'no number twice');
      await first.app.close();
      await second.app.close();

      // Stopped for ten days: the next start bills them.
      clock.advance(10 * DAY);
      const restarted = await adminHarness(t, backend, { databaseUrl, clock, webhooks: false, subscriptionPollMs: 20 });
      await heldWithin(
        20_000,
        'caught up',
        async () => (await restarted.as(ws.apiKey, { method: 'GET', url: '/v1/invoices?limit=1000' })).json().data.length === 200,
      );
    });
  });
}
