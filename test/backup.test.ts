// Rule (issue 14, part 5; docs/operations.md "Run it in production"): `portal backup --out FILE` copies a SQLite
// database consistently while the server runs (VACUUM INTO), the copy serves what was committed; it refuses
// PostgreSQL (pg_dump) and an existing file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { oneJson, portal } from './helpers/cli.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { serve, stop } from './helpers/server.js';

describe('portal backup', () => {
  test('a copy of a running server’s SQLite database holds every acknowledged write', { timeout: 60_000 }, async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Backed up', '--json')).stdout);
    const server = await serve({ DATABASE_URL: url, LIMITS_ENABLED: 'false' });
    t.after(() => stop(server.child));
    const emails = Array.from({ length: 20 }, (_, i) => `c${i}@backup.test`);
    for (const email of emails) {
      const res = await fetch(`${server.base}/v1/clients`, {
        method: 'POST',
        headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ email, givenName: 'B', familyName: 'U' }),
      });
      assert.equal(res.status, 200);
    }
    const dir = mkdtempSync(join(tmpdir(), 'portal-backup-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'copy.db');
    const backup = await portal(url, 'backup', '--out', file, '--json');
    assert.equal(backup.code, 0, backup.stderr);
    const printed = oneJson(backup.stdout);
    assert.equal(printed.file, file);
    assert.ok(printed.bytes > 0);

    const copy = await buildApp(loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' }), {
      webhooks: false,
      subscriptionPollMs: false,
    });
    t.after(() => copy.close());
    const listed = await copy.inject({ method: 'GET', url: '/v1/clients?limit=100', headers: { 'x-api-key': ws.apiKey } });
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(
      listed
        .json()
        .data.map((c: { email: string }) => c.email)
        .sort(),
      [...emails].sort(),
    );

    const again = await portal(url, 'backup', '--out', file, '--json');
    assert.equal(again.code, 2);
    assert.deepEqual(oneJson(again.stdout), { error: { code: 'usage', message: `${file} exists: name a new file` } });
  });

  if (BACKENDS.includes('postgres')) {
    test('on PostgreSQL it points to pg_dump', async (t) => {
      const url = await freshDatabaseUrl(t, 'postgres');
      const res = await portal(url, 'backup', '--out', join(tmpdir(), 'never.db'), '--json');
      assert.equal(res.code, 2);
      assert.deepEqual(oneJson(res.stdout), {
        error: { code: 'usage', message: 'portal backup copies a SQLite database; for PostgreSQL use pg_dump' },
      });
    });
  }
});
