import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { oneJson, portal } from './helpers/cli.js';
import { assertDeliveredOnce, slowCompanyReceiver } from './helpers/deliveries.js';
import { heldWithin } from './helpers/eventually.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { type Server, serve } from './helpers/server.js';

/**
 * Rule (issue 12): webhooks lose nothing. A server delivering to a slow receiver is SIGKILLed in the
 * middle of its deliveries, KILLS times; started again each time, it delivers the event of every
 * acknowledged change, each with its webhook-id (repeats of one id are what at-least-once allows).
 */

const KILLS = 3;
const PER_ROUND = 25;

async function createCompany(base: string, apiKey: string, name: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${base}/v1/companies`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
      signal: AbortSignal.timeout(5000),
    });
    return res.status === 200 ? ((await res.json()) as { id: string }).id : undefined;
  } catch {
    return undefined;
  }
}

for (const backend of BACKENDS) {
  describe(`webhooks across SIGKILL [${backend}]`, () => {
    test(`every acknowledged change's event is delivered across ${KILLS} SIGKILLs mid-delivery`, { timeout: 240_000 }, async (t) => {
      const { url: hookUrl, received } = await slowCompanyReceiver(t);

      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const env = { DATABASE_URL: databaseUrl, LIMITS_ENABLED: 'false', PORTAL_WEBHOOKS_ALLOW_PRIVATE: '1' };
      let server: Server = await serve(env);
      t.after(() => server.child.kill('SIGKILL'));
      const workspaceId = /Created workspace ([0-9a-f-]{36})/.exec(server.output())?.[1];
      const apiKey = /\n {2}(ppk_[A-Za-z0-9_-]{59})\n/.exec(server.output())?.[1];
      assert.ok(workspaceId && apiKey, 'the first start prints the workspace and its key');
      process.env.PORTAL_WEBHOOKS_ALLOW_PRIVATE = '1';
      const created = await portal(
        databaseUrl,
        'webhooks',
        'create',
        '--workspace',
        workspaceId,
        '--url',
        hookUrl,
        '--events',
        'company.created',
        '--json',
      );
      assert.equal(created.code, 0, created.stdout + created.stderr);
      assert.match(oneJson(created.stdout).secret, /^whsec_/);

      const acknowledged: string[] = [];
      for (let round = 1; round <= KILLS; round++) {
        const ids = await Promise.all(Array.from({ length: PER_ROUND }, (_, i) => createCompany(server.base, apiKey, `R${round} C${i}`)));
        acknowledged.push(...ids.filter((id): id is string => id !== undefined));
        const seen = received.length;
        await heldWithin(10_000, 'deliveries under way', async () => received.length > seen);
        server.child.kill('SIGKILL');
        await server.exited;
        server = await serve(env);
      }
      assert.equal(acknowledged.length, KILLS * PER_ROUND, 'every create acknowledged');
      const repeats = await assertDeliveredOnce(acknowledged, received);
      t.diagnostic(`${KILLS} kills; ${acknowledged.length} events, ${received.length} requests received (${repeats} repeats); lost: 0`);
      server.child.kill('SIGTERM');
      await server.exited;
    });
  });
}
