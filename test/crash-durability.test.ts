import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { type Server, serve } from './helpers/server.js';

/**
 * Rule (issue 10): a write the server acknowledged (a 200) survives the server being killed (SIGKILL,
 * no shutdown at all) at any moment under concurrent write load, whole: after a restart every
 * acknowledged client and company reads back exactly as acknowledged, and no client lacks its company.
 * A client is 5 rows in one transaction (placeholder company, client, membership, two audit entries).
 */

const KILLS = 5;
const WRITERS = 16;

interface Acknowledged {
  clients: Record<string, unknown>[];
  companies: Record<string, unknown>[];
}

async function postJson(base: string, apiKey: string, path: string, body: object): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    return res.status === 200 ? JSON.parse(text) : undefined;
  } catch {
    return undefined; // the connection died with the server: not acknowledged
  }
}

async function getJson(base: string, apiKey: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** At least this many clients acknowledged in a round before its kill (the load is real), waited for at most 2 s more. */
const MIN_ACKED_PER_ROUND = 12;

/**
 * Writers POST until the server dies (or 3 s pass); the server is SIGKILLed after `killAfterMs`, or, on a machine so
 * loaded that fewer than MIN_ACKED_PER_ROUND clients were acknowledged by then, as soon as they are (2 s at most).
 */
async function loadThenKill(server: Server, apiKey: string, round: number, killAfterMs: number, acked: Acknowledged) {
  let killed = false;
  const deadline = Date.now() + 3000;
  const writer = async (w: number) => {
    for (let i = 0; !killed && Date.now() < deadline && i < 10_000; i++) {
      const tag = `r${round}w${w}i${i}`;
      if (i % 4 === 3) {
        const company = await postJson(server.base, apiKey, '/v1/companies', { name: `Co ${tag}` });
        if (company) acked.companies.push(company);
      } else {
        const client = await postJson(server.base, apiKey, '/v1/clients', { email: `${tag}@crash.test`, givenName: 'C', familyName: tag });
        if (client) acked.clients.push(client);
      }
    }
  };
  const ackedBefore = acked.clients.length;
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  await new Promise((resolve) => setTimeout(resolve, killAfterMs));
  for (let waited = 0; acked.clients.length - ackedBefore < MIN_ACKED_PER_ROUND && waited < 2000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  killed = true;
  server.child.kill('SIGKILL');
  await server.exited;
  await Promise.all(writers);
}

for (const backend of BACKENDS) {
  describe(`crash durability [${backend}]`, () => {
    test(`every acknowledged write survives ${KILLS} SIGKILLs under concurrent write load, whole`, { timeout: 120_000 }, async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const env = { DATABASE_URL: databaseUrl, LIMITS_ENABLED: 'false' };
      let server = await serve(env);
      t.after(() => server.child.kill('SIGKILL'));
      const apiKey = /\n {2}(ppk_[A-Za-z0-9_-]{59})\n/.exec(server.output())?.[1];
      assert.ok(apiKey, 'the first start prints a key');
      const acked: Acknowledged = { clients: [], companies: [] };
      for (let round = 1; round <= KILLS; round++) {
        await loadThenKill(server, apiKey, round, 150 + Math.floor(Math.random() * 450), acked);
        server = await serve(env);
      }
      for (const client of acked.clients) {
        const read = await getJson(server.base, apiKey, `/v1/clients/${client.id}`);
        assert.deepEqual(read, { status: 200, body: client }, `acknowledged client ${client.id}`);
        assert.equal(
          (await getJson(server.base, apiKey, `/v1/companies/${client.companyId}`)).status,
          200,
          `its company ${client.companyId}`,
        );
      }
      for (const company of acked.companies) {
        assert.deepEqual(
          await getJson(server.base, apiKey, `/v1/companies/${company.id}`),
          { status: 200, body: company },
          `acknowledged company ${company.id}`,
        );
      }
      // No half-written client: every stored client's company exists.
      let listed = 0;
      let nextToken: string | undefined;
      for (let page = 0; page < 1000; page++) {
        const query = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
        const { status, body } = await getJson(server.base, apiKey, `/v1/clients?limit=1000${query}`);
        assert.equal(status, 200);
        for (const client of body.data as { companyId: string }[]) {
          listed++;
          assert.equal((await getJson(server.base, apiKey, `/v1/companies/${client.companyId}`)).status, 200, `company of a listed client`);
        }
        nextToken = body.nextToken as string | undefined;
        if (!nextToken) break;
      }
      assert.ok(listed >= acked.clients.length, 'at least every acknowledged client is listed');
      assert.ok(acked.clients.length > KILLS * 10, `load was real (${acked.clients.length} clients acknowledged)`);
      t.diagnostic(
        `${KILLS} kills; ${acked.clients.length} acknowledged clients and ${acked.companies.length} companies read back whole; ${listed} clients stored (unacknowledged ones may have committed); lost: 0`,
      );
      server.child.kill('SIGTERM');
      await server.exited;
    });
  });
}
