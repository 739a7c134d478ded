import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { oneJson, portal } from './helpers/cli.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEY = /^ppk_[A-Za-z0-9_-]{59}$/;

for (const backend of BACKENDS) {
  describe(`portal command (contract §7) [${backend}]`, () => {
    test('migrate --json reports what it applied, then nothing', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      assert.deepEqual(oneJson((await portal(url, 'migrate', '--json')).stdout), { applied: Object.keys(MIGRATIONS) });
      assert.deepEqual(oneJson((await portal(url, 'migrate', '--json')).stdout), { applied: [] });
    });

    test('workspaces create, keys create and keys revoke --json, and the keys work against the API', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--daily-quota', '500', '--json')).stdout);
      assert.deepEqual(Object.keys(ws).sort(), ['apiKey', 'apiKeyId', 'workspaceId']);
      assert.match(ws.workspaceId, UUID);
      assert.match(ws.apiKeyId, UUID);
      assert.match(ws.apiKey, KEY);

      const key = oneJson((await portal(url, 'keys', 'create', '--workspace', ws.workspaceId, '--json')).stdout);
      assert.deepEqual(Object.keys(key).sort(), ['apiKey', 'apiKeyId']);
      const appId = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      const appKey = oneJson((await portal(url, 'keys', 'create', '--workspace', ws.workspaceId, '--app', appId, '--json')).stdout);
      assert.equal(appKey.appId, appId);
      assert.match(appKey.apiKey, KEY);

      const revoked = await portal(url, 'keys', 'revoke', '--workspace', ws.workspaceId, '--key-id', key.apiKeyId, '--json');
      assert.equal(revoked.code, 0);
      assert.deepEqual(oneJson(revoked.stdout), { apiKeyId: key.apiKeyId, revoked: true });

      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const me = (k: string) => app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': k } });
      assert.equal((await me(ws.apiKey)).statusCode, 200);
      assert.equal((await me(appKey.apiKey)).json().type, 'app');
      assert.equal((await me(key.apiKey)).statusCode, 401);
      const before = await app.inject({ method: 'GET', url: '/v1/workspaces', headers: { 'x-api-key': ws.apiKey } });
      assert.equal(before.json().dailyQuota, 500);
      assert.equal(before.headers['x-service-quota-limit'], '500');

      const updated = await portal(url, 'workspaces', 'update', '--workspace', ws.workspaceId, '--daily-quota', '750', '--json');
      assert.deepEqual(oneJson(updated.stdout), { workspaceId: ws.workspaceId, name: 'Acme', dailyQuota: 750 });
      const after = await app.inject({ method: 'GET', url: '/v1/workspaces', headers: { 'x-api-key': ws.apiKey } });
      assert.equal(after.headers['x-service-quota-limit'], '750', 'the new quota applies from the next request');
      const bad = await portal(url, 'workspaces', 'update', '--workspace', ws.workspaceId, '--daily-quota', 'lots', '--json');
      assert.deepEqual([bad.code, oneJson(bad.stdout)], [2, { error: { code: 'usage', message: '--daily-quota must be a non-negative integer' } }]);
    });

    test('errors under --json are one JSON object and a non-zero exit', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const missing = await portal(url, 'workspaces', 'create', '--json');
      assert.equal(missing.code, 2);
      assert.deepEqual(oneJson(missing.stdout), { error: { code: 'usage', message: '--name is required' } });
      const unknown = await portal(url, 'keys', 'revoke', '--workspace', '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', '--key-id', '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', '--json');
      assert.equal(unknown.code, 1);
      assert.deepEqual(oneJson(unknown.stdout), { error: { code: 'not_found', message: 'Workspace not found.' } });
      const human = await portal(url, 'workspaces', 'create', '--name', 'Human');
      assert.equal(human.code, 0);
      assert.match(human.stdout, /^Workspace [0-9a-f-]{36} created\.\nWorkspace API key \(shown only now\): ppk_/);
    });
  });
}
