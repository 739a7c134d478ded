import assert from 'node:assert/strict';
import { heldWithin } from './eventually.js';
import { localReceiver } from './local-receiver.js';

/** A webhook request as a test's receiver saw it: its webhook-id and the company its event is about. */
export interface ReceivedDelivery {
  webhookId: string;
  companyId: string;
}

/**
 * Rule (issue 12): webhooks lose nothing. Waits (120 s at most: a killed process's claims lapse after 30 s, and the
 * file runs beside another) until every acknowledged company's event has
 * arrived, then holds each to one webhook-id however often it was sent (repeats are what at-least-once allows);
 * returns how many requests were repeats.
 */
export async function assertDeliveredOnce(acknowledged: readonly string[], received: readonly ReceivedDelivery[]): Promise<number> {
  await heldWithin(120_000, 'every acknowledged company delivered', async () => {
    const delivered = new Set(received.map((r) => r.companyId));
    return acknowledged.every((id) => delivered.has(id));
  });
  const idsByCompany = new Map<string, Set<string>>();
  for (const r of received) idsByCompany.set(r.companyId, (idsByCompany.get(r.companyId) ?? new Set()).add(r.webhookId));
  for (const id of acknowledged) assert.equal(idsByCompany.get(id)?.size, 1, `company ${id}: one webhook-id, however many sends`);
  return received.length - new Set(received.map((r) => r.webhookId)).size;
}

/** A slow webhook receiver (50 ms an answer, so a kill finds deliveries under way) for one test; its URL and what it received. */
export async function slowCompanyReceiver(t: { after(fn: () => Promise<void>): void }) {
  const received: ReceivedDelivery[] = [];
  const url = await localReceiver(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
      received.push({ webhookId: String(req.headers['webhook-id']), companyId: body.data.id });
      setTimeout(() => res.writeHead(200).end('ok'), 50);
    });
  });
  return { url, received };
}
