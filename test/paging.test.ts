import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { BACKENDS, type Harness, harness } from './helpers/harness.js';
import { pageOfKeys } from './helpers/internals.js';
import { present } from './helpers/present.js';

/** Paging (contract §4) through the shared helper, over the api_keys table of one workspace. */
async function insertKeys(h: Harness, workspaceId: string, count: number, atMs: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    await h.app.ctx.db
      .insertInto('api_keys')
      .values({
        id,
        workspace_id: workspaceId,
        kind: 'app',
        app_id: null,
        lookup: randomUUID(),
        secret_hash: '00',
        created_at: new Date(atMs + (i % 3)).toISOString(),
        revoked_at: null,
      })
      .execute();
  }
  return ids;
}

const page = (h: Harness, workspaceId: string, request: { limit?: number; nextToken?: string }) => pageOfKeys(h, workspaceId, request);

for (const backend of BACKENDS) {
  describe(`paging (contract §4) [${backend}]`, () => {
    test('newest first, no row skipped or repeated while rows are inserted between pages', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const base = h.clock.now() - 60_000;
      const original = new Set([ws.apiKeyId, ...(await insertKeys(h, ws.workspaceId, 23, base))]); // ties on created_at included
      const seen: string[] = [];
      let token: string | undefined;
      for (let round = 0; round < 20; round++) {
        const result = await page(h, ws.workspaceId, { limit: 5, nextToken: token });
        assert.ok(result.data.length > 0, 'no page is empty');
        seen.push(...result.data.map((r) => r.id));
        for (let i = 1; i < result.data.length; i++) {
          const [prev, cur] = [result.data[i - 1], result.data[i]];
          assert.ok(prev.created_at > cur.created_at || (prev.created_at === cur.created_at && prev.id > cur.id), 'ordered newest first');
        }
        // Concurrent writers: newer rows arrive between every two pages.
        await insertKeys(h, ws.workspaceId, 3, h.clock.now() + round * 10);
        token = result.nextToken;
        if (!token) break;
      }
      assert.equal(token, undefined, 'paging ended');
      assert.equal(new Set(seen).size, seen.length, 'no row repeated');
      assert.deepEqual(new Set(seen), original, 'every row present when paging began was served once');
    });

    test('a nextToken is given only when more rows exist', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      await insertKeys(h, ws.workspaceId, 4, h.clock.now()); // 5 rows with the workspace key
      const exact = await page(h, ws.workspaceId, { limit: 5 });
      assert.equal(exact.data.length, 5);
      assert.equal(exact.nextToken, undefined);
      const first = await page(h, ws.workspaceId, { limit: 4 });
      assert.equal(typeof first.nextToken, 'string');
      const decoded = JSON.parse(Buffer.from(present(first.nextToken, 'nextToken'), 'base64').toString());
      assert.deepEqual(Object.keys(decoded), ['c', 'i', 's'], 'base64 of a JSON object');
      const second = await page(h, ws.workspaceId, { limit: 4, nextToken: first.nextToken });
      assert.equal(second.data.length, 1);
      assert.equal(second.nextToken, undefined);
    });

    test('a tampered, garbage or foreign token is a 400 naming query.nextToken', async (t) => {
      const h = await harness(t, backend);
      const a = await h.workspace('A');
      const b = await h.workspace('B');
      await insertKeys(h, a.workspaceId, 3, h.clock.now());
      await insertKeys(h, b.workspaceId, 3, h.clock.now());
      const token = present((await page(h, a.workspaceId, { limit: 1 })).nextToken, 'nextToken');
      const decoded = JSON.parse(Buffer.from(token, 'base64').toString());
      const forged = Buffer.from(JSON.stringify({ ...decoded, c: '2999-01-01T00:00:00.000Z' })).toString('base64');
      for (const bad of [forged, 'garbage!!', Buffer.from('[1,2]').toString('base64'), Buffer.from('null').toString('base64')]) {
        await assert.rejects(page(h, a.workspaceId, { nextToken: bad }), {
          statusCode: 400,
          code: 'bad_request',
          data: [{ path: 'query.nextToken', message: 'is not a page token of this list' }],
        });
      }
      await assert.rejects(page(h, b.workspaceId, { nextToken: token }), { statusCode: 400 }, "another workspace's token");
      await assert.rejects(
        pageOfKeys(h, a.workspaceId, { nextToken: token }, { kind: 'app' }),
        { statusCode: 400 },
        'same workspace, other filters',
      );
    });
  });
}
