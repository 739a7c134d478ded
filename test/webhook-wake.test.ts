// Rule (issue 21, part 7): a change's webhook leaves within milliseconds of its commit, not on the worker's
// next poll: recordAudit wakes this process's webhook worker after the commit (audit/audit-log.writer.ts).
// Measured as the median time from the API's answer to the receiver's request, with the poll left at 1 s
// (without the wake-up a change waits for the next poll: a median of about half the poll; bench/README.md).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { adminRequest, createClient } from './helpers/factories.js';
import { BACKENDS, adminHarness } from './helpers/harness.js';
import { localReceiver } from './helpers/local-receiver.js';

const POLL_MS = 1000;
const CHANGES = 15;
const WAIT_MS = 5000;

/** A receiver on 127.0.0.1 that notes when each request arrived, by the client it is about. */
async function timedReceiver(t: { after(fn: () => Promise<void>): void }) {
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const url = await localReceiver(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
      arrivals.set(data.id, at);
      waiters.get(data.id)?.();
      res.writeHead(200).end();
    });
  });
  /** When the request about `id` arrived (waiting at most WAIT_MS for it). */
  const arrivalOf = (id: string) =>
    new Promise<number>((resolve, reject) => {
      const known = arrivals.get(id);
      if (known !== undefined) return resolve(known);
      const timer = setTimeout(() => reject(new Error(`no webhook for ${id} within ${WAIT_MS} ms`)), WAIT_MS);
      waiters.set(id, () => {
        clearTimeout(timer);
        resolve(arrivals.get(id) as number);
      });
    });
  return { url, arrivalOf };
}

for (const backend of BACKENDS) {
  describe(`webhooks woken on commit [${backend}]`, () => {
    test(`the median time from the answer to the receiver's request is far below the ${POLL_MS} ms poll`, async (t) => {
      const h = await adminHarness(t, backend, {
        env: { PORTAL_WEBHOOKS_ALLOW_PRIVATE: '1' },
        webhooks: { pollMs: POLL_MS, timeoutMs: 1000 },
      });
      const ws = await h.workspace('Acme');
      const receiver = await timedReceiver(t);
      const endpoint = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/webhooks`, {
        url: receiver.url,
        eventTypes: ['client.created'],
      });
      assert.equal(endpoint.statusCode, 200, endpoint.body);
      h.clock.advance(1000); // events after the endpoint's creation

      const latencies: number[] = [];
      for (let i = 0; i < CHANGES; i++) {
        // Each change at another phase of the poll, spread over one period (else each would follow a poll).
        await new Promise((resolve) => setTimeout(resolve, Math.round((i * POLL_MS) / CHANGES)));
        const client = await createClient(h, ws.apiKey, { email: `c${i}@acme.test`, givenName: 'C', familyName: String(i) });
        const answered = performance.now();
        latencies.push((await receiver.arrivalOf(client.id)) - answered);
      }
      latencies.sort((a, b) => a - b);
      const median = latencies[Math.floor(CHANGES / 2)];
      t.diagnostic(`median ${median.toFixed(1)} ms, max ${latencies[CHANGES - 1].toFixed(1)} ms over ${CHANGES} changes`);
      assert.ok(median < 200, `median ${median.toFixed(1)} ms (poll ${POLL_MS} ms): ${latencies.map((l) => l.toFixed(0)).join(', ')}`);
    });
  });
}
