import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { heldWithin } from './helpers/eventually.js';
import { oneJson, portal, portalWith } from './helpers/cli.js';
import { logoPng } from './helpers/images.js';

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
      assert.deepEqual(oneJson(updated.stdout), { workspaceId: ws.workspaceId, name: 'Acme', dailyQuota: 750, staffMfaRequired: false });
      // Another process changed it: the server's cached credential (which carries the quota) sees it within a second.
      await heldWithin(1000, 'the new quota applies', async () => {
        const after = await app.inject({ method: 'GET', url: '/v1/workspaces', headers: { 'x-api-key': ws.apiKey } });
        return after.headers['x-service-quota-limit'] === '750';
      });
      const bad = await portal(url, 'workspaces', 'update', '--workspace', ws.workspaceId, '--daily-quota', 'lots', '--json');
      assert.deepEqual(
        [bad.code, oneJson(bad.stdout)],
        [2, { error: { code: 'usage', message: '--daily-quota must be a non-negative integer' } }],
      );
    });

    // Rule (issue 44, point 1): the operator sets a workspace's logo from a file and removes it, as on the admin surface
    // (the same checks: its type from its bytes, never SVG; nothing written when refused); its URL is under PORTAL_URL.
    test('workspaces update --logo FILE and --remove-logo', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const dir = mkdtempSync(join(tmpdir(), 'portal-logo-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const env = { PORTAL_URL: 'https://portal.acme.test' };
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const logo = logoPng();
      writeFileSync(join(dir, 'logo.png'), logo);
      writeFileSync(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
      const update = (...args: string[]) => portalWith(env, url, 'workspaces', 'update', '--workspace', ws.workspaceId, ...args);

      const set = await update('--logo', join(dir, 'logo.png'), '--name', 'Acme Ltd', '--json');
      const logoUrl = `https://portal.acme.test/portal/${ws.workspaceId}/api/workspace/logo/${createHash('sha256').update(logo).digest('hex')}`;
      assert.deepEqual(
        [set.code, oneJson(set.stdout)],
        [0, { workspaceId: ws.workspaceId, name: 'Acme Ltd', dailyQuota: 2000, staffMfaRequired: false, logoUrl }],
      );
      const text = await update('--logo', join(dir, 'logo.png'));
      assert.equal(
        text.stdout,
        `Workspace ${ws.workspaceId}: name "Acme Ltd", daily quota 2000, TOTP optional for staff, logo at ${logoUrl}.\n`,
      );

      const svg = await update('--logo', join(dir, 'logo.svg'), '--name', 'Not renamed', '--json');
      assert.deepEqual(
        [svg.code, oneJson(svg.stdout)],
        [
          1,
          {
            error: {
              code: 'unsupported_media_type',
              message: 'body is not a PNG, JPEG, WebP or GIF image (its type is read from its bytes; SVG is never taken)',
            },
          },
        ],
      );
      const missing = await update('--logo', join(dir, 'none.png'), '--json');
      assert.equal(missing.code, 1);
      assert.match(oneJson(missing.stdout).error.message, /^Cannot read .*none\.png: ENOENT/);
      const both = await update('--logo', join(dir, 'logo.png'), '--remove-logo');
      assert.deepEqual([both.code, both.stderr.split('\n')[0]], [2, 'portal: give --logo or --remove-logo, not both']);
      const listed = oneJson((await portal(url, 'workspaces', 'list', '--json')).stdout);
      assert.equal(listed.data[0].name, 'Acme Ltd', 'the refused command renamed nothing');

      const removed = await update('--remove-logo', '--json');
      assert.deepEqual(
        [removed.code, oneJson(removed.stdout)],
        [0, { workspaceId: ws.workspaceId, name: 'Acme Ltd', dailyQuota: 2000, staffMfaRequired: false }],
      );
      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const gone = await app.inject({ method: 'GET', url: new URL(logoUrl).pathname });
      assert.equal(gone.statusCode, 404);
    });

    // Rule (issue 42, point 13): the operator lists workspaces and a workspace's keys from the command line; a key
    // listed shows a prefix to tell it apart, never its secret.
    test('workspaces list and keys list --json, and their lines without it', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const empty = await portal(url, 'workspaces', 'list');
      assert.deepEqual([empty.code, empty.stdout], [0, 'No workspace.\n']);
      const acme = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const beta = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Beta', '--sandbox', '--json')).stdout);
      const listed = oneJson((await portal(url, 'workspaces', 'list', '--json')).stdout);
      assert.deepEqual(
        listed.data.map((w: { id: string; name: string; sandbox: boolean }) => [w.id, w.name, w.sandbox]),
        [
          [beta.workspaceId, 'Beta', true],
          [acme.workspaceId, 'Acme', false],
        ],
      );
      assert.equal(listed.nextToken, undefined);
      const first = oneJson((await portal(url, 'workspaces', 'list', '--limit', '1', '--json')).stdout);
      assert.deepEqual([first.data.length, first.data[0].id, typeof first.nextToken], [1, beta.workspaceId, 'string']);
      const rest = oneJson((await portal(url, 'workspaces', 'list', '--next-token', first.nextToken, '--json')).stdout);
      assert.deepEqual([rest.data.map((w: { id: string }) => w.id), rest.nextToken], [[acme.workspaceId], undefined]);
      const text = await portal(url, 'workspaces', 'list');
      assert.equal(text.stdout, `${beta.workspaceId}  Beta  (sandbox)\n${acme.workspaceId}  Acme\n`);

      const appId = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      const app = oneJson(
        (await portal(url, 'keys', 'create', '--workspace', acme.workspaceId, '--app', appId, '--label', 'job', '--json')).stdout,
      );
      await portal(url, 'keys', 'revoke', '--workspace', acme.workspaceId, '--key-id', app.apiKeyId);
      const keys = await portal(url, 'keys', 'list', '--workspace', acme.workspaceId, '--json');
      assert.equal(keys.code, 0);
      const { data } = oneJson(keys.stdout);
      assert.deepEqual(
        data.map((k: Record<string, unknown>) => [k.id, k.prefix, k.kind, k.appId, k.label, typeof k.createdAt, typeof k.revokedAt]),
        [
          [acme.apiKeyId, acme.apiKey.slice(0, 10), 'workspace', null, null, 'string', 'object'],
          [app.apiKeyId, app.apiKey.slice(0, 10), 'app', appId, 'job', 'string', 'string'],
        ],
      );
      assert.deepEqual(Object.keys(data[0]).sort(), ['appId', 'createdAt', 'id', 'kind', 'label', 'prefix', 'revokedAt']);
      const lines = (await portal(url, 'keys', 'list', '--workspace', acme.workspaceId)).stdout;
      assert.match(lines, new RegExp(`^${acme.apiKey.slice(0, 10)}…  ${acme.apiKeyId}  \\(no label\\) +workspace  created `, 'm'));
      assert.match(lines, new RegExp(`^${app.apiKey.slice(0, 10)}…  ${app.apiKeyId}  job +app ${appId}  created .+  revoked `, 'm'));
      for (const secret of [acme.apiKey, app.apiKey]) {
        assert.ok(!keys.stdout.includes(secret.slice(10)) && !lines.includes(secret.slice(10)), 'never a secret');
      }
      const none = await portal(url, 'keys', 'list', '--workspace', appId, '--json');
      assert.deepEqual([none.code, oneJson(none.stdout)], [1, { error: { code: 'not_found', message: 'Workspace not found.' } }]);
    });

    test('errors under --json are one JSON object and a non-zero exit', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const missing = await portal(url, 'workspaces', 'create', '--json');
      assert.equal(missing.code, 2);
      assert.deepEqual(oneJson(missing.stdout), { error: { code: 'usage', message: '--name is required' } });
      const unknown = await portal(
        url,
        'keys',
        'revoke',
        '--workspace',
        '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
        '--key-id',
        '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
        '--json',
      );
      assert.equal(unknown.code, 1);
      assert.deepEqual(oneJson(unknown.stdout), { error: { code: 'not_found', message: 'Workspace not found.' } });
      const human = await portal(url, 'workspaces', 'create', '--name', 'Human');
      assert.equal(human.code, 0);
      assert.match(human.stdout, /^Workspace [0-9a-f-]{36} created\.\nWorkspace API key \(shown only now\): ppk_/);
    });
  });
}
