// Rule (issue 33, point 4): a workspace created as a sandbox has a test clock its operator, the CLI or its keys move
// forward (never back), and everything time drives follows without waiting: subscriptions bill their periods and
// their invoices are charged, failed charges are retried on their schedule, session and bearer tokens expire, the
// daily quota's day turns. A production workspace has no clock (404). Done when (issue 33): a sandbox subscription
// advanced three periods has three invoices, the second paid by a failing card and retried.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { portal, oneJson } from '../../../../test/helpers/cli.js';
import {
  APP_ID,
  adminRequest,
  createClient,
  createCompany,
  mintBearerToken,
  populatedWorkspace,
  sessionKeyFor,
  withBearer,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, freshDatabaseUrl } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { moduleHarness, okJson } from '../../../../test/helpers/world.js';

const DAY_S = 86_400;
const iso = (ms: number) => new Date(ms).toISOString();
const VISA = { number: '4242424242424242', expMonth: 12, expYear: 2030 };
const DECLINED = { ...VISA, number: '4000000000000002' };

async function sandbox(h: Harness, dailyQuota?: number) {
  const res = await adminRequest(h, 'POST', '/admin/workspaces', { name: 'Sandbox', sandbox: true, ...(dailyQuota ? { dailyQuota } : {}) });
  assert.equal(res.statusCode, 201, res.body);
  const created = res.json();
  const key = created.apiKey as string;
  const company = await createCompany(h, key, { name: 'Sandbox Co' });
  const client = await createClient(h, key, { email: 'sid@sandbox.test', givenName: 'Sid', familyName: 'Box', companyId: company.id });
  const call = (method: 'GET' | 'POST', url: string, payload?: object, as = key) =>
    h.as(as, { method, url, ...(payload ? { payload } : {}) });
  const advance = async (body: object) => okJson(await call('POST', '/v1/test-clock/advance', body), 'advance');
  const card = async (card: object) => okJson(await call('POST', '/v1/payment-methods', { clientId: client.id, card }), 'card');
  return { workspaceId: created.workspaceId as string, key, company, client, call, advance, card };
}

for (const backend of BACKENDS) {
  describe(`test clocks [${backend}]`, () => {
    test('a production workspace has no clock: 404 on the API and the admin surface; a sandbox’s starts at the server’s time', async (t) => {
      const h = await moduleHarness(t, backend);
      const { ws } = await populatedWorkspace(h);
      const none = await h.as(ws.apiKey, { method: 'GET', url: '/v1/test-clock' });
      assert.deepEqual(
        [none.statusCode, none.json()],
        [
          404,
          {
            code: 'not_found',
            message: 'This workspace is not a sandbox: it has no test clock (a sandbox is created with sandbox: true).',
            data: null,
          },
        ],
      );
      assert.equal((await h.as(ws.apiKey, { method: 'POST', url: '/v1/test-clock/advance', payload: { bySeconds: 60 } })).statusCode, 404);
      assert.equal(
        (await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/test-clock/advance`, { bySeconds: 60 })).statusCode,
        404,
      );
      const s = await sandbox(h);
      assert.deepEqual(okJson(await s.call('GET', '/v1/test-clock')), {
        object: 'testClock',
        workspaceId: s.workspaceId,
        time: iso(NOON),
        aheadBySeconds: 0,
      });
      assert.equal(okJson(await s.call('GET', '/v1/workspaces')).sandbox, true);
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: '/v1/workspaces' })).json().sandbox, false);
    });

    test('a clock moves forward only: `to` not later than its time is a 400 naming body.to; exactly one of to and bySeconds', async (t) => {
      const h = await moduleHarness(t, backend);
      const s = await sandbox(h);
      const moved = await s.advance({ bySeconds: 3600 });
      assert.deepEqual(moved, { object: 'testClock', workspaceId: s.workspaceId, time: iso(NOON + 3_600_000), aheadBySeconds: 3600 });
      const back = await s.call('POST', '/v1/test-clock/advance', { to: iso(NOON + 1000) });
      assert.deepEqual(
        [back.statusCode, back.json().data],
        [400, [{ path: 'body.to', message: `must be later than the clock's time (${iso(NOON + 3_600_000)}): a clock never moves back` }]],
      );
      assertProblems(await s.call('POST', '/v1/test-clock/advance', { to: iso(NOON + 7_200_000), bySeconds: 5 }), ['body']);
      assertProblems(await s.call('POST', '/v1/test-clock/advance', {}), ['body']);
      assertProblems(await s.call('POST', '/v1/test-clock/advance', { bySeconds: 0 }), ['body.bySeconds']);
      const admin = okJson(
        await adminRequest(h, 'POST', `/admin/workspaces/${s.workspaceId}/test-clock/advance`, { to: '2026-02-01T00:00:00.000Z' }),
      );
      assert.equal(admin.time, '2026-02-01T00:00:00.000Z');
      // What the workspace writes is dated by its clock; the server's own clock has not moved.
      const company = okJson(await s.call('POST', '/v1/companies', { name: 'Later Co' }));
      assert.equal(company.createdAt, '2026-02-01T00:00:00.000Z');
      assert.equal(h.clock.now(), NOON);
    });

    test('session and bearer tokens expire on the workspace’s time', async (t) => {
      const h = await moduleHarness(t, backend);
      const s = await sandbox(h);
      const app = await h.appKey(s.workspaceId, APP_ID);
      const session = await sessionKeyFor(h, s.workspaceId, { apiKey: app.apiKey, clientId: s.client.id });
      const bearer = (await mintBearerToken(h, app.apiKey)).json().token as string;
      assert.equal((await withBearer(h, bearer, 'GET', '/v1/me')).statusCode, 200);
      assert.equal((await s.call('GET', '/v1/me', undefined, session)).statusCode, 200);
      await s.advance({ bySeconds: 3600 });
      assert.equal((await withBearer(h, bearer, 'GET', '/v1/me')).statusCode, 401, 'a bearer token lives an hour');
      assert.equal((await s.call('GET', '/v1/me', undefined, session)).statusCode, 200, 'a session a day');
      await s.advance({ bySeconds: DAY_S });
      assert.equal((await s.call('GET', '/v1/me', undefined, session)).statusCode, 401);
    });

    test('the daily quota’s day turns on the workspace’s time', async (t) => {
      const h = await moduleHarness(t, backend);
      const s = await sandbox(h, 3); // its company and client took two of the three
      assert.equal((await s.call('GET', '/v1/me')).statusCode, 200);
      const spent = await s.call('GET', '/v1/me');
      assert.deepEqual(
        [spent.statusCode, spent.headers['x-service-quota-reset']],
        [429, String(Date.parse('2026-01-16T00:00:00.000Z') / 1000)],
      );
      okJson(await adminRequest(h, 'POST', `/admin/workspaces/${s.workspaceId}/test-clock/advance`, { to: '2026-01-16T00:00:00.000Z' }));
      const nextDay = await s.call('GET', '/v1/me');
      assert.deepEqual([nextDay.statusCode, nextDay.headers['x-service-quota-remaining']], [200, '2']);
    });

    test('three periods: three invoices; the second’s charge declined, the subscription past due, then retried a day later with a good card and paid', async (t) => {
      const h = await moduleHarness(t, backend);
      const s = await sandbox(h);
      await s.card(VISA);
      const subscription = okJson(
        await s.call('POST', '/v1/subscriptions', {
          clientId: s.client.id,
          lineItems: [{ amount: 5000, quantity: 1, description: 'Plan' }],
          daysUntilDue: 0,
          interval: 'month',
          collectionMethod: 'chargeAutomatically',
          scheduleIterations: 3,
        }),
      );
      const invoices = async () =>
        okJson(await s.call('GET', '/v1/invoices?limit=100'))
          .data.filter((i: { subscriptionId?: string }) => i.subscriptionId === subscription.id)
          .reverse();
      const status = async () => okJson(await s.call('GET', `/v1/subscriptions/${subscription.id}`)).status;
      await s.advance({ bySeconds: 1 });
      assert.deepEqual(
        (await invoices()).map((i: { status: string }) => i.status),
        ['paid'],
      );
      await s.card(DECLINED); // the newest card is the one charged
      await s.advance({ to: '2026-02-15T12:00:00.000Z' });
      const [, second] = await invoices();
      assert.deepEqual([second.status, second.attemptCount, second.nextPaymentAttempt], ['open', 1, '2026-02-16T12:00:00.000Z']);
      assert.equal(await status(), 'pastDue');
      await s.card(VISA);
      await s.advance({ bySeconds: DAY_S });
      const retried = (await invoices())[1];
      assert.deepEqual(
        [retried.status, retried.attemptCount, retried.paymentSuccessDate, retried.nextPaymentAttempt],
        ['paid', 2, '2026-02-16T12:00:00.000Z', undefined],
      );
      assert.equal(await status(), 'active');
      await s.advance({ to: '2026-03-15T12:00:00.000Z' });
      const all = await invoices();
      assert.deepEqual(
        all.map((i: { createdAt: string; status: string; total: number }) => [i.createdAt, i.status, i.total]),
        [
          ['2026-01-15T12:00:00.000Z', 'paid', 5000],
          ['2026-02-15T12:00:00.000Z', 'paid', 5000],
          ['2026-03-15T12:00:00.000Z', 'paid', 5000],
        ],
      );
      assert.equal(await status(), 'ended');
      const payments = okJson(await s.call('GET', `/v1/payments?invoiceId=${all[1].id}`)).data;
      assert.deepEqual(
        payments.map((p: { status: string; declineCode?: string; createdAt: string }) => [p.status, p.declineCode, p.createdAt]),
        [
          ['succeeded', undefined, '2026-02-16T12:00:00.000Z'],
          ['failed', 'generic_decline', '2026-02-15T12:00:00.000Z'],
        ],
      );
      const failed = okJson(await s.call('GET', '/v1/audit-logs?eventType=paymentFailed')).data;
      assert.deepEqual(
        failed.map((e: { context: { invoiceId: string; nextPaymentAttempt: string } }) => [
          e.context.invoiceId,
          e.context.nextPaymentAttempt,
        ]),
        [[all[1].id, '2026-02-16T12:00:00.000Z']],
      );
      assert.equal(okJson(await s.call('GET', '/v1/audit-logs?eventType=paymentSucceeded')).data.length, 3);
    });

    test('retries run out after the fourth failure (days 0, 1, 4, 9): the subscription unpaid, no further attempt', async (t) => {
      const h = await moduleHarness(t, backend);
      const s = await sandbox(h);
      await s.card(DECLINED);
      const subscription = okJson(
        await s.call('POST', '/v1/subscriptions', {
          clientId: s.client.id,
          lineItems: [{ amount: 5000, quantity: 1 }],
          daysUntilDue: 0,
          interval: 'month',
          collectionMethod: 'chargeAutomatically',
        }),
      );
      await s.advance({ bySeconds: 10 * DAY_S });
      const [invoice] = okJson(await s.call('GET', '/v1/invoices')).data;
      assert.deepEqual([invoice.status, invoice.attemptCount, invoice.nextPaymentAttempt], ['open', 4, undefined]);
      const attempts = okJson(await s.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data.map((p: { createdAt: string }) =>
        p.createdAt.slice(0, 10),
      );
      assert.deepEqual(attempts, ['2026-01-24', '2026-01-19', '2026-01-16', '2026-01-15']);
      assert.equal(okJson(await s.call('GET', `/v1/subscriptions/${subscription.id}`)).status, 'unpaid');
      // Paid by hand, it is active again.
      okJson(await adminRequest(h, 'POST', `/admin/workspaces/${s.workspaceId}/invoices/${invoice.id}/pay`));
      assert.equal(okJson(await s.call('GET', `/v1/subscriptions/${subscription.id}`)).status, 'active');
    });

    test('portal workspaces create --sandbox, portal test-clock show and advance', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const h = { databaseUrl: url };
      const created = oneJson((await portal(h.databaseUrl, 'workspaces', 'create', '--name', 'Cli Sandbox', '--sandbox', '--json')).stdout);
      const moved = await portal(
        h.databaseUrl,
        'test-clock',
        'advance',
        '--workspace',
        created.workspaceId,
        '--by-seconds',
        '86400',
        '--json',
      );
      assert.equal(moved.code, 0, moved.stderr);
      assert.equal(oneJson(moved.stdout).aheadBySeconds, 86_400);
      const shown = oneJson((await portal(h.databaseUrl, 'test-clock', 'show', '--workspace', created.workspaceId, '--json')).stdout);
      assert.ok(shown.aheadBySeconds >= 86_400 && shown.aheadBySeconds < 86_500);
      const both = await portal(
        h.databaseUrl,
        'test-clock',
        'advance',
        '--workspace',
        created.workspaceId,
        '--by-seconds',
        '1',
        '--to',
        '2030-01-01T00:00:00Z',
      );
      assert.deepEqual([both.code, both.stderr.trim().split('\n')[0]], [2, 'portal: give one of --to and --by-seconds']);
    });
  });
}
