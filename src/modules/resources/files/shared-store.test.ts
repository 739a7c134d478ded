// Rule (issue 42, point 11): a file store knows whose it is. Two databases on one FILES_DIR (or one bucket and
// prefix) keep their content apart, each under its own database id: neither one's start nor its sweep removes
// the other's content. The sweep quarantines its own orphans before deleting them, and content at the layout
// before namespaces (`<workspaceId>/<fileId>`) keeps being served and is moved under the database that names it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, describe, test } from 'node:test';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { BACKENDS, type Backend, type Harness, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { FILE_STORES, type FileStoreKind, fileStoreEnv } from '../../../../test/helpers/s3.js';
import { okJson } from '../../../../test/helpers/world.js';
import { sweepContent } from './content-sweep.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOTHING = { adopted: 0, legacyRemoved: 0, quarantined: 0, restored: 0, deleted: 0 };

/** A sweep of the app's store as the app runs it, at `nowMs`. */
const sweep = (h: Harness, nowMs: number, namespaceSinceMs = 0) =>
  sweepContent(h.app.ctx.database, h.app.ctx.files.store, { graceMs: 60_000, quarantineMs: 7 * DAY, namespaceSinceMs }, nowMs);

/** One store's environment, shared by the databases of a test: one directory, or one bucket and prefix. */
async function sharedStore(t: TestContext, kind: FileStoreKind): Promise<Record<string, string>> {
  if (kind === 's3') return fileStoreEnv('s3');
  const dir = mkdtempSync(join(tmpdir(), 'portal-shared-files-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { FILES_DIR: dir };
}

/** A workspace with one client's channel and one completed file holding `text`. */
async function fileHolding(h: Harness, text: string) {
  const ws = await h.workspace();
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    okJson(await h.as(ws.apiKey, { method, url, ...(payload ? { payload } : {}) }), `${method} ${url}`);
  const client = await call('POST', '/v1/clients', { email: `${text.replace(/\W/g, '')}@example.com`, givenName: 'A', familyName: 'B' });
  const channel = await call('POST', '/v1/channels/files', { membershipType: 'individual', clientId: client.id });
  const file = await call('POST', '/v1/files/file', { channelId: channel.id, path: 'kept.txt' });
  const url = new URL(file.uploadUrl);
  const put = await h.app.inject({
    method: 'PUT',
    url: `${url.pathname}${url.search}`,
    payload: text,
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(put.statusCode, 200, put.body);
  const download = () => h.as(ws.apiKey, { method: 'GET', url: `/v1/files/${file.id}/download` });
  return { ws, client, file, call, download, key: `${ws.workspaceId}/${file.id}` };
}

async function keys(h: Harness, area: 'live' | 'legacy' | 'quarantine' = 'live'): Promise<string[]> {
  const found: string[] = [];
  for await (const { key } of h.app.ctx.files.store.list(area)) found.push(key);
  return found.sort();
}

/** The database pairs: two of each backend, and one of each. */
const PAIRS: [Backend, Backend][] = BACKENDS.includes('postgres')
  ? [
      ['sqlite', 'sqlite'],
      ['postgres', 'postgres'],
      ['sqlite', 'postgres'],
    ]
  : [['sqlite', 'sqlite']];

for (const kind of FILE_STORES) {
  for (const [first, second] of PAIRS) {
    describe(`two databases on one ${kind} store [${first} + ${second}]`, () => {
      test('each one’s start and sweep leave the other’s content whole', async (t) => {
        const env = await sharedStore(t, kind);
        const a = await harness(t, first, { env });
        const ofA = await fileHolding(a, 'first database');
        // On the local store the first database's content can be made hours old, as in the report: then the second
        // one's own sweeps (at its start, then every 50 ms here) would judge it, if they reached it.
        const hoursAgo = new Date(Date.now() - 3 * HOUR);
        if (kind === 'local') await utimes(join(env.FILES_DIR, a.app.ctx.files.store.namespace, ofA.key), hoursAgo, hoursAgo);
        // The second database starts on the same store (its start sweeps), and gets a file of its own.
        const b = await harness(t, second, { env, fileOrphanSweepMs: 50 });
        if (kind === 'local') {
          // An old orphan of its own shows when its sweep has been through: quarantined, while the first's content stays.
          const own = `${ofA.ws.workspaceId}/00000000-0000-4000-8000-000000000001`;
          await b.app.ctx.files.store.put(own, (async function* () {})(), 10);
          await utimes(join(env.FILES_DIR, b.app.ctx.files.store.namespace, own), hoursAgo, hoursAgo);
          await heldWithin(10_000, 'the second database’s sweep quarantines its own orphan', async () =>
            (await keys(b, 'quarantine')).includes(own),
          );
          const res = await ofA.download();
          assert.deepEqual([res.statusCode, res.body], [200, 'first database'], 'after the second one’s own sweeps');
        }
        const ofB = await fileHolding(b, 'second database');
        assert.deepEqual(await keys(a), [ofA.key], 'each store lists only its own database’s content');
        assert.deepEqual(await keys(b), [ofB.key]);
        // Each one's sweep as it runs hours later (no content spared for being recent).
        const later = Date.now() + 2 * HOUR;
        assert.deepEqual(await sweep(b, later), NOTHING);
        assert.deepEqual(await sweep(a, later), NOTHING);
        const whole = async () => {
          for (const [of, text] of [
            [ofA, 'first database'],
            [ofB, 'second database'],
          ] as const) {
            const res = await of.download();
            assert.deepEqual([res.statusCode, res.body], [200, text]);
          }
        };
        await whole();
        // The first database's own orphan (its client deleted) is quarantined by its sweep alone, then deleted a
        // quarantine later; the second's content stays through both.
        const orphan = await fileHolding(a, 'orphan of the first');
        await orphan.call('DELETE', `/v1/clients/${orphan.client.id}`);
        assert.deepEqual(await sweep(b, later), NOTHING, 'not the second database’s to judge');
        assert.deepEqual(await sweep(a, later), { ...NOTHING, quarantined: 1 });
        assert.deepEqual([await keys(a), await keys(a, 'quarantine')], [[ofA.key], [orphan.key]]);
        assert.deepEqual(await sweep(a, later + 8 * DAY), { ...NOTHING, deleted: 1 });
        const sentinel = kind === 'local' ? 1 : 0; // the second's own old orphan, quarantined by its sweeps above
        assert.deepEqual(await sweep(b, later + 8 * DAY), { ...NOTHING, deleted: sentinel });
        assert.deepEqual([await keys(a, 'quarantine'), await keys(b)], [[], [ofB.key]]);
        await whole();
      });

      test('a restored database gets its quarantined content back from the next sweep', async (t) => {
        const env = await sharedStore(t, kind);
        const a = await harness(t, first, { env });
        const b = await harness(t, second, { env });
        const ofA = await fileHolding(a, 'first database');
        const ofB = await fileHolding(b, 'second database');
        // As if the row were gone (a restore of an older backup, then the newer one put back).
        await a.app.ctx.files.store.move(ofA.key, 'live', 'quarantine');
        assert.equal((await ofA.download()).statusCode, 500, 'missing while quarantined');
        assert.deepEqual(await sweep(b, Date.now() + 2 * HOUR), NOTHING);
        assert.deepEqual(await sweep(a, Date.now() + 2 * HOUR), { ...NOTHING, restored: 1 });
        for (const [of, text] of [
          [ofA, 'first database'],
          [ofB, 'second database'],
        ] as const) {
          const res = await of.download();
          assert.deepEqual([res.statusCode, res.body], [200, text]);
        }
      });
    });
  }
}

for (const kind of FILE_STORES) {
  for (const backend of BACKENDS) {
    describe(`upgrading a database whose content is at the legacy layout [${backend}, ${kind} store]`, () => {
      test('served throughout, copied under its id at start, its legacy copy removed a window later; another database’s start and sweep never touch it', async (t) => {
        const env = await sharedStore(t, kind);
        const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
        const before = await harness(t, backend, { env, databaseUrl });
        const ofA = await fileHolding(before, 'before the upgrade');
        const namespace = before.app.ctx.files.store.namespace;
        // The release before: content at `<workspaceId>/<fileId>`, and the database without an id.
        assert.equal(await before.app.ctx.files.store.move(ofA.key, 'live', 'legacy'), true);
        await before.app.ctx.db.deleteFrom('server_settings').where('name', '=', 'database-id').execute();
        await before.app.close();
        // Another database, upgraded, starts on the same store and sweeps (hours later): not its content.
        const other = await harness(t, backend, { env });
        const ofOther = await fileHolding(other, 'another database');
        assert.deepEqual(await sweep(other, Date.now() + 2 * HOUR), NOTHING);
        assert.deepEqual(await keys(other, 'legacy'), [ofA.key], 'left where it was');
        // The upgraded release starts on the database: the same id (made from its files secret), content served.
        const upgradeAt = Date.now();
        const after = await harness(t, backend, { env, databaseUrl });
        assert.equal(after.app.ctx.files.store.namespace, namespace, 'a backup from before the id existed gets the same id');
        const served = async (h: Harness) => {
          const res = await h.as(ofA.ws.apiKey, { method: 'GET', url: `/v1/files/${ofA.file.id}/download` });
          assert.deepEqual([res.statusCode, res.body], [200, 'before the upgrade']);
        };
        await served(after);
        await heldWithin(10_000, 'the start’s sweep copies it under the database’s id', async () =>
          after.app.ctx.files.store.has(ofA.key, 'live'),
        );
        assert.deepEqual(await keys(after, 'legacy'), [ofA.key], 'the legacy copy stays while processes of the release before may read it');
        const since = upgradeAt - 1000;
        assert.deepEqual(await sweep(after, Date.now() + 2 * HOUR, since), NOTHING);
        await served(after);
        assert.deepEqual(await sweep(after, since + 7 * DAY, since), { ...NOTHING, legacyRemoved: 1 });
        assert.deepEqual([await keys(after), await keys(after, 'legacy')], [[ofA.key], []]);
        await served(after);
        assert.deepEqual(await sweep(other, since + 8 * DAY), NOTHING);
        const res = await ofOther.download();
        assert.deepEqual([res.statusCode, res.body], [200, 'another database']);
        await served(after);
      });
    });
  }
}
