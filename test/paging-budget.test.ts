// Issue 29, point 3: no list page is a memory bomb. A client posted 1,000 messages of 10,000 control characters, and
// one `GET /v1/messages?limit=1000` answered 60 MB (JSON writes U+0001 as six bytes); five at once took the server
// to 1.28 GB. Every list now ends a page early, with a nextToken, before the row that would take its rows' stored
// text past PAGE_TEXT_BUDGET (4 MiB), never before its first row; and free text refuses control characters
// (test/free-text.test.ts), so only rows stored before that rule can still be six bytes of JSON per character.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { PAGE_TEXT_BUDGET } from '../src/db/paging.js';
import { populatedWorkspace } from './helpers/factories.js';
import { BACKENDS, type Harness, adminHarness, freshDatabaseUrl } from './helpers/harness.js';
import { serve, stop } from './helpers/server.js';

const MESSAGES = 1_000;
const TEXT_LENGTH = 10_000;

/** A channel of the workspace's client with 1,000 messages of 10,000 characters, posted through the API, 50 at a time. */
async function channelWithLongMessages(h: Harness) {
  const { ws, client } = await populatedWorkspace(h);
  const channel = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/message-channels',
    payload: { membershipType: 'individual', clientId: client.id },
  });
  assert.equal(channel.statusCode, 200, channel.body);
  const channelId: string = channel.json().id;
  for (let first = 0; first < MESSAGES; first += 50) {
    const sent = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/messages',
          payload: { channelId, senderId: client.id, text: `${first + i} `.padEnd(TEXT_LENGTH, 'x') },
        }),
      ),
    );
    for (const res of sent) assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  }
  const list = (limit: number, nextToken?: string) =>
    h.as(ws.apiKey, {
      method: 'GET',
      url: `/v1/messages?channelId=${channelId}&limit=${limit}${nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : ''}`,
    });
  return { ws, channelId, list };
}

/** The stored text of one message row: the sum of its string columns' lengths, as the page budget counts it. */
async function rowTextLength(h: Harness, channelId: string): Promise<number> {
  const row = await h.app.ctx.db.selectFrom('messages').selectAll().where('channel_id', '=', channelId).executeTakeFirstOrThrow();
  return Object.values(row).reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 0), 0);
}

/** The server process's peak resident set size so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  assert.ok(kib, `VmHWM of process ${pid}`);
  return Number(kib) * 1024;
}

/** GET on its own connection, the body counted and dropped as it arrives: the status and the byte count. */
function getCounted(url: string, apiKey: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'x-api-key': apiKey }, agent: false, timeout: 60_000 }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const MiB = 1024 * 1024;

for (const backend of BACKENDS) {
  describe(`every list page ends early past its text budget [${backend}]`, () => {
    test('1,000 messages of 10,000 characters: limit=1000 pages end before 4 MiB of text with a nextToken; every message once', async (t) => {
      const h = await adminHarness(t, backend);
      const { channelId, list } = await channelWithLongMessages(h);
      const perRow = await rowTextLength(h, channelId);
      const perPage = Math.floor(PAGE_TEXT_BUDGET / perRow);
      assert.ok(perPage > 1 && perPage < MESSAGES, `${perRow} characters a row: ${perPage} rows a page`);

      const seen: string[] = [];
      const sizes: number[] = [];
      let next: string | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await list(1000, next);
        assert.equal(res.statusCode, 200);
        const body = res.json();
        sizes.push(body.data.length);
        seen.push(...body.data.map((m: { id: string }) => m.id));
        // The answer is the page's text and its fields' names: a little more than the budget, never the 10 MB of the whole list.
        assert.ok(res.rawPayload.length < PAGE_TEXT_BUDGET + 256 * 1024, `page ${page}: ${res.rawPayload.length} bytes`);
        next = body.nextToken;
        if (!next) break;
      }
      const full = Math.floor(MESSAGES / perPage);
      assert.deepEqual(
        sizes,
        [...Array.from({ length: full }, () => perPage), ...(MESSAGES % perPage ? [MESSAGES % perPage] : [])],
        'full pages of as many rows as fit in the budget, then the rest',
      );
      assert.equal(new Set(seen).size, MESSAGES, 'every message once');
      // The budget never empties a page: a limit of 1 is one row, and the next page follows it.
      const one = (await list(1)).json();
      assert.deepEqual([one.data.length, typeof one.nextToken], [1, 'string']);
    });

    test('rows stored before control characters were refused (six bytes of JSON each) still page under the budget; five concurrent pages keep the server under 512 MiB more', async (t) => {
      // The rows are written in process; a server of its own (`portal serve`) then answers, so that its memory is measured alone.
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const h = await adminHarness(t, backend, { databaseUrl });
      const { ws, channelId, list } = await channelWithLongMessages(h);
      // The attack of the issue, as it stands in a database written before the rule: 10,000 U+0001 a message.
      await h.app.ctx.db
        .updateTable('messages')
        .set({ text: '\u0001'.repeat(TEXT_LENGTH) })
        .where('channel_id', '=', channelId)
        .execute();
      const perPage = Math.floor(PAGE_TEXT_BUDGET / (await rowTextLength(h, channelId)));
      const first = await list(1000);
      assert.equal(first.statusCode, 200);
      assert.deepEqual([first.json().data.length, typeof first.json().nextToken], [perPage, 'string']);
      // Six bytes of JSON a stored character at most: 24 MiB, where the unbounded page was 60 MB.
      const pageBytes = first.rawPayload.length;
      assert.ok(pageBytes < 6 * PAGE_TEXT_BUDGET + MiB, `${pageBytes} bytes`);

      const server = await serve({ DATABASE_URL: databaseUrl, LIMITS_ENABLED: 'false' });
      t.after(() => stop(server.child));
      const pid = server.child.pid as number;
      const url = `${server.base}/v1/messages?channelId=${channelId}&limit=1000`;
      assert.deepEqual(await getCounted(url, ws.apiKey), { status: 200, bytes: pageBytes }, 'one page first: the server is warm');
      const before = peakRss(pid);
      const five = await Promise.all(Array.from({ length: 5 }, () => getCounted(url, ws.apiKey)));
      assert.deepEqual(five, Array(5).fill({ status: 200, bytes: pageBytes }));
      const growth = peakRss(pid) - before;
      t.diagnostic(
        `the server's peak RSS grew ${Math.round(growth / MiB)} MiB (from ${Math.round(before / MiB)} MiB) for five concurrent pages`,
      );
      assert.ok(growth < 512 * MiB, `peak RSS grew ${Math.round(growth / MiB)} MiB (five unbounded pages of 60 MB: about 700 MiB)`);
    });
  });
}
