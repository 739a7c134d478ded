import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { buildApp } from '../../../app.js';
import { loadConfig } from '../../../config.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import {
  APP_ID,
  TEST_ADMIN_TOKEN,
  adminRequest,
  createClient,
  createCompany,
  createTestInternalUser,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, type Backend, NOON, freshDatabaseUrl } from '../../../../test/helpers/harness.js';
import { moduleHarness, okJson } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PUBLIC_LISTS = ['/v1/products', '/v1/prices', '/v1/invoice-templates', '/v1/subscription-templates'];

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON bodies, read field by field
type Body = Record<string, any>;

/** A workspace on a harness with the admin surface; `admin` posts to its admin routes, `patch` patches, `get` reads with its key. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const h = await moduleHarness(t, backend);
  const ws = await h.workspace('Catalog');
  const base = `/admin/workspaces/${ws.workspaceId}`;
  const admin = (path: string, payload: object, workspaceId = ws.workspaceId) =>
    adminRequest(h, 'POST', `/admin/workspaces/${workspaceId}${path}`, payload);
  const patch = (path: string, payload: object) =>
    h.app.inject({ method: 'PATCH', url: `${base}${path}`, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload });
  const get = (url: string, key = ws.apiKey) => h.as(key, { method: 'GET', url });
  const made = async (path: string, payload: object): Promise<Body> => okJson(await admin(path, payload));
  const audit = async (eventType: string): Promise<Body[]> => (await get(`/v1/audit-logs?eventType=${eventType}`)).json().data;
  return { h, ws, admin, patch, get, made, audit };
}

/** The 400's problems, as `path message` lines. */
function problemsOf(res: { statusCode: number; body: string; json(): Body }): string[] {
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().code, 'bad_request');
  return res.json().data.map((p: { path: string; message: string }) => `${p.path} ${p.message}`);
}

const line = (amount: number, quantity: number, description?: string) => ({ amount, quantity, ...(description ? { description } : {}) });

for (const backend of BACKENDS) {
  describe(`catalog [${backend}]`, () => {
    test('products: created active with defaults, retrieved, listed, filtered by name case-insensitively; productCreated', async (t) => {
      const { h, made, get, audit } = await world(t, backend);
      const lamp = await made('/products', { name: ' Desk Lamp ', description: 'Brass', imageUrls: ['https://cdn.example.com/lamp.png'] });
      assert.match(lamp.id, UUID);
      const expected = {
        id: lamp.id,
        object: 'product',
        createdAt: AT,
        updatedAt: AT,
        name: 'Desk Lamp',
        description: 'Brass',
        status: 'active',
        imageUrls: ['https://cdn.example.com/lamp.png'],
      };
      assert.deepEqual(lamp, expected);
      h.clock.advance(1000);
      const chair = await made('/products', { name: 'Chair' });
      assert.deepEqual([chair.description, chair.imageUrls, chair.status, chair.createdAt], ['', [], 'active', '2026-01-15T12:00:01.000Z']);

      assert.deepEqual((await get(`/v1/products/${lamp.id}`)).json(), expected);
      assert.deepEqual((await get('/v1/products')).json(), { data: [chair, lamp] });
      for (const name of ['desk lamp', 'DESK LAMP', 'Desk%20Lamp']) {
        assert.deepEqual((await get(`/v1/products?name=${name}`)).json(), { data: [lamp] }, name);
      }
      assert.deepEqual((await get('/v1/products?name=Desk')).json(), { data: [] }, 'exact, not a prefix');
      assert.deepEqual((await get('/v1/products?name=')).json().data.length, 2, 'empty: no filter');

      const created = await audit('productCreated');
      assert.deepEqual(
        created.map((e) => [e.ref, e.source, e.context, JSON.parse(e.data)]),
        [
          [chair.id, 'system', { productId: chair.id, name: 'Chair' }, chair],
          [lamp.id, 'system', { productId: lamp.id, name: 'Desk Lamp' }, expected],
        ],
      );
    });

    test('products: bad input names every field in one 400; name 200 characters ok, 201 not', async (t) => {
      const { admin, made, get } = await world(t, backend);
      assert.equal((await made('/products', { name: 'n'.repeat(200) })).name, 'n'.repeat(200));
      assert.deepEqual(problemsOf(await admin('/products', { name: 'n'.repeat(201) })), [
        'body.name must NOT have more than 200 characters',
      ]);
      assert.deepEqual(problemsOf(await admin('/products', {})), ['body.name is required']);
      assert.deepEqual(problemsOf(await admin('/products', { name: '   ' })), ['body.name must match pattern "\\S"']);
      assert.deepEqual(
        problemsOf(
          await admin('/products', { name: '', description: 'd'.repeat(1001), imageUrls: ['not a url'], status: 'archived' }),
        ).sort(),
        [
          'body.description must NOT have more than 1000 characters',
          'body.imageUrls.0 must match format "uri"',
          'body.name must NOT have fewer than 1 characters',
          'body.name must match pattern "\\S"',
          'body.status is not a known field',
        ],
      );
      assert.equal((await made('/products', { name: 'D', description: 'd'.repeat(1000) })).description.length, 1000);
      assert.equal((await get('/v1/products')).json().data.length, 2);
    });

    test('products: PATCH changes name, description and status, recording productUpdated with what changed; unchanged, nothing', async (t) => {
      const { h, made, patch, get, audit } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp', description: 'Brass' });
      h.clock.advance(1000);
      const renamed = await patch(`/products/${lamp.id}`, { name: 'Floor Lamp', status: 'archived' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      const after = { ...lamp, name: 'Floor Lamp', status: 'archived', updatedAt: '2026-01-15T12:00:01.000Z' };
      assert.deepEqual(renamed.json(), after);
      assert.deepEqual((await get(`/v1/products/${lamp.id}`)).json(), after);
      assert.deepEqual((await get('/v1/products?name=floor%20lamp')).json(), { data: [after] }, 'the name filter follows a rename');
      assert.deepEqual((await get('/v1/products?name=lamp')).json(), { data: [] });

      h.clock.advance(1000);
      for (const body of [{}, { name: 'Floor Lamp', description: 'Brass', status: 'archived' }, { name: ' Floor Lamp ' }]) {
        const same = await patch(`/products/${lamp.id}`, body);
        assert.deepEqual([same.statusCode, same.json()], [200, after], JSON.stringify(body));
      }
      const updated = await audit('productUpdated');
      assert.deepEqual(
        updated.map((e) => [e.ref, e.context, e.previousAttributes, JSON.parse(e.data)]),
        [[lamp.id, { productId: lamp.id }, { name: 'Lamp', status: 'active' }, after]],
      );

      const described = await patch(`/products/${lamp.id}`, { description: '', status: 'active' });
      assert.deepEqual([described.json().description, described.json().status], ['', 'active']);
      assert.deepEqual((await audit('productUpdated'))[0].previousAttributes, { description: 'Brass', status: 'archived' });

      assert.deepEqual(problemsOf(await patch(`/products/${lamp.id}`, { status: 'deleted', name: '' })).sort(), [
        'body.name must NOT have fewer than 1 characters',
        'body.name must match pattern "\\S"',
        'body.status must be one of: active, archived',
      ]);
      assert.deepEqual(problemsOf(await patch(`/products/${lamp.id}`, { imageUrls: [] })), ['body.imageUrls is not a known field']);
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const missing = await patch(`/products/${id}`, { name: 'X' });
        assert.deepEqual([missing.statusCode, missing.json()], [404, { code: 'not_found', message: 'Product not found.', data: null }]);
      }
    });

    test('prices: one-time and recurring, amount 0, currency lower-cased, interval aliases normalised; priceCreated', async (t) => {
      const { h, made, get, audit } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp' });
      const free = await made('/prices', { productId: lamp.id, amount: 0 });
      assert.match(free.id, UUID);
      assert.deepEqual(free, {
        id: free.id,
        object: 'price',
        createdAt: AT,
        updatedAt: AT,
        productId: lamp.id,
        amount: 0,
        currency: 'usd',
        type: 'oneTime',
      });
      assert.equal('intervalCount' in free, false, 'a one-time price has no interval: left out, not null (absent is absent)');
      h.clock.advance(1000);
      const quarterly = await made('/prices', { productId: lamp.id.toUpperCase(), amount: 1999, currency: 'EUR', interval: 'quarter' });
      assert.deepEqual(
        [quarterly.productId, quarterly.currency, quarterly.type, quarterly.interval, quarterly.intervalCount],
        [lamp.id, 'eur', 'recurring', 'quarterly', 1],
      );
      h.clock.advance(1000);
      const yearly = await made('/prices', { productId: lamp.id, amount: 100_000_000, interval: 'year', intervalCount: 2 });
      assert.deepEqual([yearly.amount, yearly.interval, yearly.intervalCount], [100_000_000, 'yearly', 2]);
      for (const interval of ['day', 'week', 'month', 'quarterly', 'yearly']) {
        assert.equal((await made('/prices', { productId: lamp.id, amount: 1, interval })).interval, interval);
      }

      assert.deepEqual((await get(`/v1/prices/${quarterly.id}`)).json(), quarterly);
      assert.deepEqual((await get(`/v1/prices/${yearly.id}`)).json(), yearly, 'a bigint amount reads back as a number');
      const created = await audit('priceCreated');
      assert.equal(created.length, 8);
      const entry = created.find((e) => e.ref === quarterly.id) as Body;
      assert.deepEqual(
        [entry.source, entry.context, JSON.parse(entry.data)],
        ['system', { priceId: quarterly.id, productId: lamp.id }, quarterly],
      );
    });

    test('prices: every failing field in one 400 (amount -1, intervalCount 0 or without interval, unknown product)', async (t) => {
      const { made, admin, get } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp' });
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: -1 })), ['body.amount must be >= 0']);
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: 1.5 })), ['body.amount must be integer']);
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: 100_000_001 })), [
        'body.amount must be <= 100000000',
      ]);
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: 1, interval: 'month', intervalCount: 0 })), [
        'body.intervalCount must be >= 1',
      ]);
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: 1, interval: 'fortnight' })), [
        'body.interval must be one of: day, week, month, quarterly, yearly, quarter, year',
      ]);
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: 1, currency: 'dollars' })), [
        'body.currency must match pattern "^[A-Za-z]{3}$"',
      ]);
      assert.deepEqual(problemsOf(await admin('/prices', { amount: 1 })), ['body.productId is required']);
      const res = await admin('/prices', { productId: randomUUID(), amount: 5, intervalCount: 2 });
      assert.deepEqual(problemsOf(res), [
        'body.productId is not a product of this workspace',
        'body.intervalCount is allowed only with interval (a recurring price)',
      ]);
      assert.equal(res.json().message, '2 fields are invalid');
      assert.deepEqual(problemsOf(await admin('/prices', { productId: 'nope', amount: 5 })), [
        'body.productId is not a product of this workspace',
      ]);
      assert.deepEqual((await get('/v1/prices')).json(), { data: [] });
    });

    test('prices: listed newest first, filtered by productId, paged', async (t) => {
      const { h, made, get } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp' });
      const chair = await made('/products', { name: 'Chair' });
      const prices: Body[] = [];
      for (const [product, amount] of [
        [lamp, 100],
        [chair, 200],
        [lamp, 300],
      ] as const) {
        h.clock.advance(1000);
        prices.push(await made('/prices', { productId: product.id, amount }));
      }
      const ids = async (url: string) => (await get(url)).json().data.map((p: Body) => p.id);
      assert.deepEqual(await ids('/v1/prices'), [prices[2].id, prices[1].id, prices[0].id]);
      assert.deepEqual(await ids(`/v1/prices?productId=${lamp.id}`), [prices[2].id, prices[0].id]);
      assert.deepEqual(await ids(`/v1/prices?productId=${chair.id}`), [prices[1].id]);
      assert.deepEqual(await ids(`/v1/prices?productId=${randomUUID()}`), []);
      const first = (await get(`/v1/prices?productId=${lamp.id}&limit=1`)).json();
      assert.deepEqual(first.data, [prices[2]]);
      const second = (await get(`/v1/prices?productId=${lamp.id}&limit=1&nextToken=${encodeURIComponent(first.nextToken)}`)).json();
      assert.deepEqual(second, { data: [prices[0]] });
      const foreign = await get(`/v1/prices?productId=${chair.id}&limit=1&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.deepEqual(problemsOf(foreign), ['query.nextToken is not a page token of this list']);
    });

    test('invoice templates: lines kept exactly (decimal quantity 1.5), tax 0–100 with 3 decimals, 1–20 lines; no event', async (t) => {
      const { made, admin, get } = await world(t, backend);
      const template = await made('/invoice-templates', {
        name: 'Monthly retainer',
        memo: 'Thank you',
        taxPercentage: 7.125,
        currency: 'GBP',
        lineItems: [line(1999, 1.5, 'Consulting'), line(0, 0.0001), line(100_000_000, 100_000)],
      });
      assert.match(template.id, UUID);
      const expected = {
        id: template.id,
        object: 'invoiceTemplate',
        createdAt: AT,
        updatedAt: AT,
        name: 'Monthly retainer',
        memo: 'Thank you',
        taxPercentage: 7.125,
        currency: 'gbp',
        lineItems: [
          { amount: 1999, description: 'Consulting', quantity: 1.5 },
          { amount: 0, description: '', quantity: 0.0001 },
          { amount: 100_000_000, description: '', quantity: 100_000 },
        ],
      };
      assert.deepEqual(template, expected);
      assert.deepEqual((await get('/v1/invoice-templates')).json(), { data: [expected] });
      const stored = await made('/invoice-templates', { name: 'Taxed', taxPercentage: 100, lineItems: [line(1, 2)] });
      assert.deepEqual(
        [stored.taxPercentage, stored.memo, stored.currency, stored.lineItems],
        [100, '', 'usd', [{ amount: 1, description: '', quantity: 2 }]],
      );
      const twenty = Array.from({ length: 20 }, (_, i) => line(i, 1));
      assert.equal((await made('/invoice-templates', { name: 'Twenty', lineItems: twenty })).lineItems.length, 20);

      const bad = (body: object) => admin('/invoice-templates', { name: 'T', lineItems: [line(1, 1)], ...body });
      assert.deepEqual(problemsOf(await bad({ taxPercentage: 100.001 })), ['body.taxPercentage must be <= 100']);
      assert.deepEqual(problemsOf(await bad({ taxPercentage: -1 })), ['body.taxPercentage must be >= 0']);
      assert.deepEqual(problemsOf(await bad({ lineItems: [...twenty, line(1, 1)] })), ['body.lineItems must NOT have more than 20 items']);
      assert.deepEqual(problemsOf(await bad({ lineItems: [] })), ['body.lineItems must NOT have fewer than 1 items']);
      assert.deepEqual(problemsOf(await bad({ lineItems: [line(-1, 0)] })).sort(), [
        'body.lineItems.0.amount must be >= 0',
        'body.lineItems.0.quantity must be > 0',
      ]);
      assert.deepEqual(problemsOf(await bad({ memo: 'm'.repeat(1001), name: 'n'.repeat(201) })).sort(), [
        'body.memo must NOT have more than 1000 characters',
        'body.name must NOT have more than 200 characters',
      ]);
      // What the schema cannot say, every problem in one 400.
      const decimals = await bad({ taxPercentage: 7.1234, lineItems: [line(1, 1.5), line(1, 0.12345), line(1, 2.00001)] });
      assert.deepEqual(problemsOf(decimals), [
        'body.taxPercentage has more than 3 decimals',
        'body.lineItems.1.quantity has more than 4 decimals',
        'body.lineItems.2.quantity has more than 4 decimals',
      ]);
      assert.deepEqual(problemsOf(await bad({ lineItems: [{ amount: 1 }] })), ['body.lineItems.0.quantity is required']);
      assert.equal((await get('/v1/invoice-templates')).json().data.length, 3);
      const events = (await get('/v1/audit-logs')).json().data.map((e: Body) => e.eventType);
      assert.deepEqual(events, ['apiKeyCreated'], 'templates record nothing (the entry is the workspace key’s)');
    });

    test('subscription templates: interval required (aliases normalised), intervalCount ≥ 1 (default 1); no event', async (t) => {
      const { h, made, admin, get } = await world(t, backend);
      const quarterly = await made('/subscription-templates', {
        name: 'Quarterly care',
        lineItems: [line(5000, 1.5, 'Care')],
        interval: 'quarter',
      });
      const expected = {
        id: quarterly.id,
        object: 'subscriptionTemplate',
        createdAt: AT,
        updatedAt: AT,
        name: 'Quarterly care',
        memo: '',
        taxPercentage: 0,
        currency: 'usd',
        lineItems: [{ amount: 5000, description: 'Care', quantity: 1.5 }],
        interval: 'quarterly',
        intervalCount: 1,
      };
      assert.deepEqual(quarterly, expected);
      h.clock.advance(1000);
      const yearly = await made('/subscription-templates', {
        name: 'Yearly',
        lineItems: [line(1, 1)],
        interval: 'year',
        intervalCount: 3,
        taxPercentage: 19.5,
      });
      assert.deepEqual([yearly.interval, yearly.intervalCount, yearly.taxPercentage], ['yearly', 3, 19.5]);
      assert.deepEqual((await get('/v1/subscription-templates')).json(), { data: [yearly, expected] });

      const bad = (body: object) => admin('/subscription-templates', { name: 'S', lineItems: [line(1, 1)], interval: 'month', ...body });
      assert.deepEqual(problemsOf(await admin('/subscription-templates', { name: 'S', lineItems: [line(1, 1)] })), [
        'body.interval is required',
      ]);
      assert.deepEqual(problemsOf(await bad({ intervalCount: 0 })), ['body.intervalCount must be >= 1']);
      assert.deepEqual(problemsOf(await bad({ interval: 'hourly', taxPercentage: 100.001 })).sort(), [
        'body.interval must be one of: day, week, month, quarterly, yearly, quarter, year',
        'body.taxPercentage must be <= 100',
      ]);
      assert.deepEqual(problemsOf(await bad({ taxPercentage: 0.0001, lineItems: [line(1, 0.00001)] })), [
        'body.taxPercentage has more than 3 decimals',
        'body.lineItems.0.quantity has more than 4 decimals',
      ]);
      const events = (await get('/v1/audit-logs')).json().data.map((e: Body) => e.eventType);
      assert.deepEqual(events, ['apiKeyCreated'], 'templates record nothing (the entry is the workspace key’s)');
    });

    test('every list pages newest first: limit 1 gives a nextToken, the last page none', async (t) => {
      const { h, made, get } = await world(t, backend);
      const created: Record<string, Body[]> = Object.fromEntries(PUBLIC_LISTS.map((url) => [url, []]));
      for (let i = 0; i < 2; i++) {
        h.clock.advance(1000);
        const product = await made('/products', { name: `P${i}` });
        created['/v1/products'].push(product);
        created['/v1/prices'].push(await made('/prices', { productId: product.id, amount: i }));
        created['/v1/invoice-templates'].push(await made('/invoice-templates', { name: `I${i}`, lineItems: [line(i, 1)] }));
        created['/v1/subscription-templates'].push(
          await made('/subscription-templates', { name: `S${i}`, lineItems: [line(i, 1)], interval: 'month' }),
        );
      }
      for (const url of PUBLIC_LISTS) {
        const [older, newer] = created[url];
        const first = (await get(`${url}?limit=1`)).json();
        assert.deepEqual(first.data, [newer], url);
        assert.equal(typeof first.nextToken, 'string', url);
        const last = (await get(`${url}?limit=1&nextToken=${encodeURIComponent(first.nextToken)}`)).json();
        assert.deepEqual(last, { data: [older] }, url);
        for (const limit of [0, 1001]) {
          assert.deepEqual(problemsOf(await get(`${url}?limit=${limit}`)), [`query.limit must be ${limit === 0 ? '>= 1' : '<= 1000'}`]);
        }
        assert.deepEqual(problemsOf(await get(`${url}?color=red`)), ['query.color is not a known field']);
      }
    });

    test("another workspace sees nothing (404, empty lists) and cannot use this workspace's products", async (t) => {
      const { h, made, admin, patch, get } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp' });
      const price = await made('/prices', { productId: lamp.id, amount: 100 });
      await made('/invoice-templates', { name: 'I', lineItems: [line(1, 1)] });
      await made('/subscription-templates', { name: 'S', lineItems: [line(1, 1)], interval: 'week' });
      const other = await h.workspace('Other');
      for (const [url, what] of [
        [`/v1/products/${lamp.id}`, 'Product'],
        [`/v1/prices/${price.id}`, 'Price'],
        ['/v1/products/not-a-uuid', 'Product'],
        [`/v1/prices/${randomUUID()}`, 'Price'],
      ]) {
        const res = await get(url, other.apiKey);
        assert.deepEqual([res.statusCode, res.json()], [404, { code: 'not_found', message: `${what} not found.`, data: null }], url);
      }
      for (const url of [...PUBLIC_LISTS, '/v1/products?name=lamp', `/v1/prices?productId=${lamp.id}`]) {
        assert.deepEqual((await get(url, other.apiKey)).json(), { data: [] }, url);
      }
      assert.deepEqual(problemsOf(await admin('/prices', { productId: lamp.id, amount: 1 }, other.workspaceId)), [
        'body.productId is not a product of this workspace',
      ]);
      const foreignPatch = await h.app.inject({
        method: 'PATCH',
        url: `/admin/workspaces/${other.workspaceId}/products/${lamp.id}`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { name: 'Mine' },
      });
      assert.deepEqual([foreignPatch.statusCode, foreignPatch.json().message], [404, 'Product not found.']);
      assert.equal((await get(`/v1/products/${lamp.id}`)).json().name, 'Lamp', 'unchanged');
      assert.equal((await patch(`/products/${lamp.id}`, { name: 'Lamp' })).statusCode, 200);
    });

    test('an unknown or malformed workspace is a 404 on every admin route; the admin token is required', async (t) => {
      const { h, made } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp' });
      const notFound = { code: 'not_found', message: 'Workspace not found.', data: null };
      for (const workspaceId of [randomUUID(), 'nope']) {
        const base = `/admin/workspaces/${workspaceId}`;
        for (const [url, payload] of [
          ['/products', { name: 'X' }],
          ['/prices', { productId: lamp.id, amount: 1 }],
          ['/invoice-templates', { name: 'I', lineItems: [line(1, 1)] }],
          ['/subscription-templates', { name: 'S', lineItems: [line(1, 1)], interval: 'day' }],
        ] as const) {
          const res = await adminRequest(h, 'POST', `${base}${url}`, payload);
          assert.deepEqual([res.statusCode, res.json()], [404, notFound], `${workspaceId} ${url}`);
        }
        const res = await h.app.inject({
          method: 'PATCH',
          url: `${base}/products/${lamp.id}`,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          payload: { name: 'X' },
        });
        assert.deepEqual([res.statusCode, res.json()], [404, notFound]);
      }
      const refused = await adminRequest(h, 'POST', `/admin/workspaces/${randomUUID()}/products`, { name: 'X' }, 'wrong-token-0123456789');
      assert.equal(refused.statusCode, 401);
    });

    test('a client session gets 404 on every public route; staff and app keys read them', async (t) => {
      const { h, ws, made, get } = await world(t, backend);
      const lamp = await made('/products', { name: 'Lamp' });
      const price = await made('/prices', { productId: lamp.id, amount: 100 });
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const company = await createCompany(h, ws.apiKey, { name: 'Client Co' });
      const client = await createClient(h, ws.apiKey, { email: 'c@catalog.test', givenName: 'C', familyName: 'L', companyId: company.id });
      const staff = await createTestInternalUser(h, ws.workspaceId, { email: 's@catalog.test', givenName: 'S', familyName: 'T' });
      const limited = await createTestInternalUser(h, ws.workspaceId, {
        email: 'l@catalog.test',
        givenName: 'L',
        familyName: 'T',
        companyAccessList: [company.id],
      });
      const clientKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const urls = [...PUBLIC_LISTS, `/v1/products/${lamp.id}`, `/v1/prices/${price.id}`];
      for (const url of urls) {
        const res = await get(url, clientKey);
        assert.deepEqual([res.statusCode, res.json()], [404, { code: 'not_found', message: 'Resource not found.', data: null }], url);
      }
      for (const key of [
        app.apiKey,
        await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: staff.id }),
        await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: limited.id }),
      ]) {
        for (const url of urls) assert.equal((await get(url, key)).statusCode, 200, url);
        assert.deepEqual((await get(`/v1/prices/${price.id}`, key)).json(), price);
      }
    });
  });
}

describe('portal products|prices|invoice-templates|subscription-templates', () => {
  test('a round trip: each command prints one JSON object, and the API answers what they made', async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const run = async (...args: string[]) => {
      const res = await portal(url, ...args, '--json');
      return { code: res.code, body: oneJson(res.stdout) };
    };
    const ws = (await run('workspaces', 'create', '--name', 'Shop')).body;
    const W = ['--workspace', ws.workspaceId];

    const product = await run('products', 'create', ...W, '--name', 'Lamp', '--description', 'Brass');
    assert.equal(product.code, 0);
    assert.deepEqual(Object.keys(product.body), ['id']);
    const updated = await run('products', 'update', ...W, '--product', product.body.id, '--name', 'Floor Lamp', '--status', 'archived');
    assert.equal(updated.code, 0);
    assert.deepEqual(
      { ...updated.body, createdAt: undefined, updatedAt: undefined },
      {
        id: product.body.id,
        object: 'product',
        createdAt: undefined,
        updatedAt: undefined,
        name: 'Floor Lamp',
        description: 'Brass',
        status: 'archived',
        imageUrls: [],
      },
    );
    const price = await run(
      'prices',
      'create',
      ...W,
      '--product',
      product.body.id,
      '--amount',
      '2500',
      '--currency',
      'EUR',
      '--interval',
      'year',
    );
    assert.deepEqual([price.code, Object.keys(price.body)], [0, ['id']]);
    const lines = JSON.stringify([{ amount: 1999, quantity: 1.5, description: 'Consulting' }]);
    const invoiceTemplate = await run(
      'invoice-templates',
      'create',
      ...W,
      '--name',
      'Retainer',
      '--line-items',
      lines,
      '--tax-percentage',
      '7.125',
    );
    assert.deepEqual([invoiceTemplate.code, Object.keys(invoiceTemplate.body)], [0, ['id']]);
    const subscriptionTemplate = await run(
      'subscription-templates',
      'create',
      ...W,
      '--name',
      'Care',
      '--line-items',
      lines,
      '--interval',
      'quarter',
      '--interval-count',
      '2',
    );
    assert.deepEqual([subscriptionTemplate.code, Object.keys(subscriptionTemplate.body)], [0, ['id']]);

    // Refusals: the schemas' and the service's problems, usage errors, an unknown workspace.
    assert.deepEqual(await run('prices', 'create', ...W, '--product', randomUUID(), '--amount=-1'), {
      code: 1,
      body: { error: { code: 'bad_request', message: 'amount must be >= 0' } },
    });
    assert.deepEqual(await run('prices', 'create', ...W, '--product', randomUUID(), '--amount', '5'), {
      code: 1,
      body: { error: { code: 'bad_request', message: 'body.productId is not a product of this workspace' } },
    });
    assert.deepEqual(await run('prices', 'create', ...W, '--product', product.body.id, '--amount', 'lots'), {
      code: 2,
      body: { error: { code: 'usage', message: '--amount must be a number' } },
    });
    assert.deepEqual(await run('invoice-templates', 'create', ...W, '--name', 'X', '--line-items', '[{'), {
      code: 2,
      body: { error: { code: 'usage', message: '--line-items must be JSON: [{"amount": 1000, "description": "…", "quantity": 1}, …]' } },
    });
    assert.deepEqual(await run('products', 'update', ...W, '--product', product.body.id, '--status', 'gone'), {
      code: 1,
      body: { error: { code: 'bad_request', message: 'status must be one of: active, archived' } },
    });
    assert.deepEqual(await run('products', 'create', '--workspace', randomUUID(), '--name', 'X'), {
      code: 1,
      body: { error: { code: 'not_found', message: 'Workspace not found.' } },
    });

    const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
    t.after(() => app.close());
    const get = async (path: string) => (await app.inject({ method: 'GET', url: path, headers: { 'x-api-key': ws.apiKey } })).json();
    assert.deepEqual((await get(`/v1/products/${product.body.id}`)).name, 'Floor Lamp');
    const stored = await get(`/v1/prices/${price.body.id}`);
    assert.deepEqual(
      [stored.productId, stored.amount, stored.currency, stored.type, stored.interval, stored.intervalCount],
      [product.body.id, 2500, 'eur', 'recurring', 'yearly', 1],
    );
    const [invoice] = (await get('/v1/invoice-templates')).data;
    assert.deepEqual(
      [invoice.id, invoice.taxPercentage, invoice.lineItems],
      [invoiceTemplate.body.id, 7.125, [{ amount: 1999, description: 'Consulting', quantity: 1.5 }]],
    );
    const [subscription] = (await get('/v1/subscription-templates')).data;
    assert.deepEqual([subscription.id, subscription.interval, subscription.intervalCount], [subscriptionTemplate.body.id, 'quarterly', 2]);
    const events = (await get('/v1/audit-logs')).data.map((e: Body) => [e.eventType, e.source]);
    assert.deepEqual(events.sort(), [
      ['apiKeyCreated', 'system'],
      ['priceCreated', 'system'],
      ['productCreated', 'system'],
      ['productUpdated', 'system'],
    ]);
  });
});
