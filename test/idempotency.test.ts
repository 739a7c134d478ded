import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';
import { fingerprintOf } from '../src/idempotency/idempotency.repository.js';
import { createTestWorkspace, defineCustomField } from './helpers/factories.js';
import { BACKENDS, freshDatabaseUrl, NOON, TestClock, workspaceHarness } from './helpers/harness.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A POST that fails on the server, to show that a 5xx answer is kept like any other. */
function failingRoute(v1: FastifyInstance) {
  v1.post('/explode', async () => {
    throw new Error('boom');
  });
}

for (const backend of BACKENDS) {
  describe(`Idempotency-Key on POST [${backend}]`, () => {
    test('a retry with the same key and body gets the first answer again, marked replayed, without running twice', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      const post = () =>
        h.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Acme' }, headers: { 'idempotency-key': 'create-acme' } });
      const first = await post();
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const retry = await post();
      assert.equal(retry.statusCode, 200);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.headers['content-type'], 'application/json; charset=utf-8');
      assert.deepEqual(retry.json(), first.json());
      assert.notEqual(retry.headers['x-request-id'], first.headers['x-request-id'], 'each request has its own id');
      const companies = (await h.as(ws.apiKey, { method: 'GET', url: '/v1/companies' })).json().data;
      assert.equal(companies.length, 1, 'created once');
      const without = await h.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Acme' } });
      assert.equal(without.statusCode, 409, 'without the header the POST runs (and meets the duplicate name)');
    });

    test('the same key with another body or URL is a 422; another workspace has its own keys', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      const other = await h.workspace('Other');
      const post = (apiKey: string, name: string, url = '/v1/companies') =>
        h.as(apiKey, { method: 'POST', url, payload: { name }, headers: { 'idempotency-key': 'k1' } });
      assert.equal((await post(ws.apiKey, 'Acme')).statusCode, 200);
      const reused = await post(ws.apiKey, 'Beta');
      assert.equal(reused.statusCode, 422);
      assert.deepEqual(reused.json(), {
        code: 'idempotency_key_reused',
        message: 'This Idempotency-Key was already used with another request (method, URL or body).',
        data: null,
      });
      assert.equal((await post(ws.apiKey, 'Acme', '/v1/companies?x=1')).statusCode, 422, 'another URL');
      const elsewhere = await post(other.apiKey, 'Beta');
      assert.equal(elsewhere.statusCode, 200, 'the key is free in another workspace');
      assert.equal(elsewhere.headers['idempotent-replayed'], undefined);
    });

    test('a key over 255 characters is a 400 naming the header; 255 is fine', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      const res = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: { name: 'A' },
        headers: { 'idempotency-key': 'k'.repeat(256) },
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json().data, [{ path: 'headers.idempotency-key', message: 'must NOT have more than 255 characters' }]);
      const ok = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: { name: 'A' },
        headers: { 'idempotency-key': 'k'.repeat(255) },
      });
      assert.equal(ok.statusCode, 200);
    });

    test('requests that fail validation, in the schema or in the service, keep nothing: the corrected retry runs', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      await defineCustomField(h, ws.workspaceId, { entity: 'company', key: 'tier', type: 'text' });
      const post = (payload: object) =>
        h.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload, headers: { 'idempotency-key': 'k' } });
      assert.equal((await post({ name: 7 })).statusCode, 400, 'schema');
      assert.equal((await post({ name: 'Acme', customFields: { nope: 'x' } })).statusCode, 400, 'service: unknown custom field');
      const fixed = await post({ name: 'Acme', customFields: { tier: 'gold' } });
      assert.equal(fixed.statusCode, 200, fixed.body);
      assert.equal(fixed.headers['idempotent-replayed'], undefined);
    });

    test('a retry while the first request still runs is a 409; a claim abandoned for 5 minutes is taken over', async (t) => {
      const clock = new TestClock();
      const { h, ws } = await workspaceHarness(t, backend, { clock });
      // Another process has claimed the key and not answered yet.
      await h.app.ctx.db
        .insertInto('idempotency_keys')
        .values({
          workspace_id: ws.workspaceId,
          scope: `key:${ws.apiKeyId}`,
          key: 'k',
          fingerprint: 'x',
          status_code: null,
          sealed_body: null,
          created_at: new Date(NOON).toISOString(),
        })
        .execute();
      const post = () => h.as(ws.apiKey, { method: 'POST', url: '/v1/token', headers: { 'idempotency-key': 'k' } });
      const busy = await post();
      assert.equal(busy.statusCode, 422, 'another request (fingerprint) holds it');
      await h.app.ctx.db
        .updateTable('idempotency_keys')
        .set({ fingerprint: fingerprintOf('POST', '/v1/companies', { name: 'Acme' }) })
        .execute();
      const running = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: { name: 'Acme' },
        headers: { 'idempotency-key': 'k' },
      });
      assert.equal(running.statusCode, 409);
      assert.deepEqual(running.json(), {
        code: 'idempotency_key_in_use',
        message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
        data: null,
      });
      clock.advance(5 * 60 * 1000 + 1);
      const takenOver = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: { name: 'Acme' },
        headers: { 'idempotency-key': 'k' },
      });
      assert.equal(takenOver.statusCode, 200, takenOver.body);
    });

    test('answers are kept 24 hours, 5xx included, and replayed by every process sharing the database', async (t) => {
      const clock = new TestClock();
      const url = await freshDatabaseUrl(t, backend);
      const database = openDatabase(url);
      t.after(() => database.close());
      const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
      const one = await buildApp(config, { database, clock, extraV1Routes: failingRoute });
      const two = await buildApp(config, { database, clock, extraV1Routes: failingRoute });
      t.after(() => one.close());
      t.after(() => two.close());
      const ws = await createTestWorkspace({ app: one, clock }, 'Acme');
      const mint = (app: FastifyInstance) =>
        app.inject({ method: 'POST', url: '/v1/token', headers: { 'x-api-key': ws.apiKey, 'idempotency-key': 'mint' } });
      const first = await mint(one);
      const replayed = await mint(two);
      assert.equal(first.statusCode, 403, 'a workspace key mints no token: a 4xx other than 400 is kept too');
      assert.deepEqual([replayed.statusCode, replayed.headers['idempotent-replayed'], replayed.body], [403, 'true', first.body]);

      const explode = (app: FastifyInstance) =>
        app.inject({ method: 'POST', url: '/v1/explode', headers: { 'x-api-key': ws.apiKey, 'idempotency-key': 'boom' } });
      const failed = await explode(one);
      assert.equal(failed.statusCode, 500);
      const again = await explode(two);
      assert.deepEqual(
        [again.statusCode, again.headers['idempotent-replayed'], again.json()],
        [500, 'true', failed.json()],
        'the 500 is replayed',
      );

      clock.advance(DAY_MS - 1);
      assert.equal((await explode(two)).headers['idempotent-replayed'], 'true', 'kept for 24 hours');
      clock.advance(2);
      const fresh = await explode(two);
      assert.equal(fresh.headers['idempotent-replayed'], undefined, 'after 24 hours the key runs afresh');
      assert.notDeepEqual(fresh.json(), failed.json(), 'a new request id in the new 500');
    });
  });
}
