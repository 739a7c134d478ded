import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { ApiPrincipal, KeyPrincipal } from '../src/lib/caller.js';
import { CredentialCache } from '../src/lib/credential-cache.js';
import { heldWithin } from './helpers/eventually.js';
import { BACKENDS, freshDatabaseUrl, harness, openDatabase } from './helpers/harness.js';

const principal = (apiKeyId: string): ApiPrincipal => ({
  kind: 'workspaceKey',
  workspaceId: 'w',
  apiKeyId,
  dailyQuota: 10,
  clockOffsetMs: 0,
});
/** Another process's change: a second handle on the database, which this process's cache does not hear of. */
async function revokeElsewhere(databaseUrl: string, apiKeyId: string) {
  const other = openDatabase(databaseUrl);
  try {
    await sql`update api_keys set revoked_at = ${new Date().toISOString()} where id = ${apiKeyId}`.execute(other.db);
  } finally {
    await other.close();
  }
}

const UNAUTHORIZED = { code: 'unauthorized', message: 'Missing, unknown, revoked or expired credentials.', data: null };

describe('CredentialCache (lib/credential-cache.ts)', () => {
  test('answers only the exact secret it verified, until the credential expires (app clock)', () => {
    const cache = new CredentialCache(1000);
    cache.remember('k:ppk_lookup', 'secret-a', principal('1'), 5000);
    assert.deepEqual(cache.find('k:ppk_lookup', 'secret-a', 4999), principal('1'));
    assert.equal(cache.find('k:ppk_lookup', 'secret-b', 4999), undefined, 'another secret of the same length');
    assert.equal(cache.find('k:ppk_lookup', 'secret-a-longer', 4999), undefined, 'another length');
    assert.equal(cache.find('k:other', 'secret-a', 4999), undefined);
    assert.equal(cache.find('k:ppk_lookup', 'secret-a', 5000), undefined, 'expired at expiresAt');
    assert.equal(cache.size, 0, 'an expired entry is dropped');
  });

  test('an entry is trusted for ttlMs of real time only (then the database is asked again)', async () => {
    const cache = new CredentialCache(50);
    cache.remember('k:a', 's', principal('1'), Number.POSITIVE_INFINITY);
    assert.ok(cache.find('k:a', 's', 0));
    await sleep(60);
    assert.equal(cache.find('k:a', 's', 0), undefined);
  });

  test('holds at most maxEntries, the oldest going first; ttl 0 keeps nothing; clear empties it', () => {
    const cache = new CredentialCache(1000, 3);
    for (const id of ['a', 'b', 'c', 'd']) cache.remember(id, 's', principal(id), Number.POSITIVE_INFINITY);
    assert.equal(cache.size, 3);
    assert.equal(cache.find('a', 's', 0), undefined, 'the oldest was evicted');
    assert.equal((cache.find('d', 's', 0) as KeyPrincipal | undefined)?.apiKeyId, 'd');
    cache.clear();
    assert.equal(cache.size, 0);
    const off = new CredentialCache(0);
    off.remember('a', 's', principal('a'), Number.POSITIVE_INFINITY);
    assert.equal(off.size, 0);
  });
});

for (const backend of BACKENDS) {
  describe(`verified credentials are cached, and revocation still applies within a second [${backend}]`, () => {
    test('a cached key is answered without a query; revoked by another process, it is refused within 1 s', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const h = await harness(t, backend, { databaseUrl });
      const ws = await h.workspace();
      const me = () => h.as(ws.apiKey, { method: 'GET', url: '/v1/me' });
      assert.equal((await me()).statusCode, 200, 'verified and cached');

      await revokeElsewhere(databaseUrl, ws.apiKeyId);
      assert.equal((await me()).statusCode, 200, 'answered from the cache: no query saw the revocation');
      await heldWithin(1000, 'the key revoked elsewhere is refused', async () => (await me()).statusCode === 401);
      assert.deepEqual((await me()).json(), UNAUTHORIZED);
    });

    test('AUTH_CACHE_TTL_MS=0: every request is verified against the database', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const h = await harness(t, backend, { databaseUrl, env: { AUTH_CACHE_TTL_MS: '0' } });
      const ws = await h.workspace();
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: '/v1/me' })).statusCode, 200);
      await revokeElsewhere(databaseUrl, ws.apiKeyId);
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: '/v1/me' })).statusCode, 401);
    });
  });
}
