// Rule (issue 14, part 3): `portal seed --workspace W` fills a workspace with demo data through the services
// (every rule and event applies) and prints what it made; `portal serve --seed` (or PORTAL_SEED_DEMO=1) does
// it for the first workspace of an empty database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { oneJson, portal } from './helpers/cli.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { serve } from './helpers/server.js';

const MADE = {
  customFields: 2,
  companies: 4,
  clients: 8,
  internalUsers: 3,
  installs: 2,
  notifications: 3,
  products: 2,
  prices: 3,
  templates: 2,
  invoices: 3,
  subscriptions: 2,
};

for (const backend of BACKENDS) {
  describe(`demo data [${backend}]`, () => {
    test('portal seed --json prints what it made, and the API serves it', { timeout: 60_000 }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Demo', '--json')).stdout);
      const seeded = await portal(url, 'seed', '--workspace', ws.workspaceId, '--json');
      assert.equal(seeded.code, 0, seeded.stdout + seeded.stderr);
      assert.deepEqual(oneJson(seeded.stdout), MADE);
      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), { webhooks: false, subscriptionPollMs: false });
      t.after(() => app.close());
      const count = async (path: string) =>
        (
          await app.inject({
            method: 'GET',
            url: `${path}${path.includes('?') ? '&' : '?'}limit=1000`,
            headers: { 'x-api-key': ws.apiKey },
          })
        ).json().data.length;
      assert.deepEqual(
        [
          await count('/v1/companies'),
          await count('/v1/clients'),
          await count('/v1/internal-users'),
          await count('/v1/invoices?status=paid'),
          await count('/v1/subscriptions'),
          await count('/v1/notifications?includeRead=true'),
          await count('/v1/products'),
          await count('/v1/prices'),
        ],
        [4, 8, 3, 1, 2, 3, 2, 3],
      );
      assert.deepEqual(
        oneJson((await portal(url, 'seed', '--workspace', ws.workspaceId, '--json')).stdout),
        MADE,
        'a second run adds another set',
      );
      const unknown = await portal(url, 'seed', '--workspace', '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', '--json');
      assert.deepEqual([unknown.code, oneJson(unknown.stdout).error.code], [1, 'not_found']);
    });

    test('portal serve --seed fills the first workspace of an empty database', { timeout: 60_000 }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const server = await serve({ DATABASE_URL: url, PORTAL_SEED_DEMO: '1' });
      t.after(() => server.child.kill('SIGKILL'));
      assert.match(server.output(), /Demo data added to it: 2 customFields, 4 companies, 8 clients/);
      const apiKey = /\n {2}(ppk_[A-Za-z0-9_-]{59})\n/.exec(server.output())?.[1];
      const res = await fetch(`${server.base}/v1/clients?limit=100`, { headers: { 'x-api-key': apiKey ?? '' } });
      assert.equal(((await res.json()) as { data: unknown[] }).data.length, 8);
      server.child.kill('SIGTERM');
      await server.exited;
    });

    test('portal serve --seed on a database that has its first workspace says it added nothing, and how to seed one (issue 29)', {
      timeout: 60_000,
    }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      // The README's two steps: `npm start` (the first workspace is made), then `npm start -- --seed`.
      const first = await serve({ DATABASE_URL: url });
      t.after(() => first.child.kill('SIGKILL'));
      const workspaceId = /Created workspace ([0-9a-f-]{36})/.exec(first.output())?.[1];
      assert.ok(workspaceId, first.output());
      first.child.kill('SIGTERM');
      await first.exited;
      const again = await serve({ DATABASE_URL: url, PORTAL_SEED_DEMO: '1' });
      t.after(() => again.child.kill('SIGKILL'));
      const said =
        '\n--seed: no demo data added. This database already has a workspace, and --seed (PORTAL_SEED_DEMO=1) fills only\n' +
        'the first workspace, made on the first start of an empty database. To fill a workspace that exists:\n\n' +
        '  npx portal seed --workspace <workspaceId>\n\n' +
        '(or start on an empty database: DATABASE_URL=sqlite:./data/demo.db npm start -- --seed)\n\n';
      assert.ok(again.output().includes(said), again.output());
      assert.doesNotMatch(again.output(), /Created workspace|Demo data added/);
      again.child.kill('SIGTERM');
      await again.exited;
      const seeded = await portal(url, 'seed', '--workspace', workspaceId, '--json');
      assert.deepEqual(oneJson(seeded.stdout), MADE, 'the command it names fills that workspace');
    });
  });
}
