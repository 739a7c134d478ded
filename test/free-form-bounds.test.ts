// Security issue 20, points 7 and 9: free-form JSON is bounded. A body nested deeper than 32 levels is a 400
// naming its field (it was a 500: JSON.stringify overflowed the stack); a free-form object (an audit entry's
// context, an app event's payload) is at most 16,384 bytes of JSON; a page of the audit log stops early once
// its entries' stored JSON passes 4 MiB, with a nextToken, so nothing is skipped or repeated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PAGE_TEXT_BUDGET } from '../src/db/paging.js';
import { BACKENDS, workspaceHarness } from './helpers/harness.js';

/** JSON text of an object `levels` objects deep (itself included), built as text: too deep to stringify. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"leaf":true}${'}'.repeat(levels - 1)}`;

/** A context of exactly `bytes` bytes of JSON. */
const contextOf = (bytes: number) => ({ pad: 'x'.repeat(bytes - '{"pad":""}'.length) });

for (const backend of BACKENDS) {
  describe(`free-form JSON is bounded [${backend}]`, () => {
    test('a context nested 5,000 levels is a 400 naming body.context, not a 500; 32 levels of body pass, 33 do not', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      const post = (context: string) =>
        h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/audit-logs',
          headers: { 'content-type': 'application/json' },
          payload: `{"eventType":"deep","eventDescription":"d","context":${context}}`,
        });
      const deep = await post(nested(5000));
      assert.equal(deep.statusCode, 400);
      assert.deepEqual(deep.json(), {
        code: 'bad_request',
        message: 'body.context: nests deeper than 32 levels',
        data: [{ path: 'body.context', message: 'nests deeper than 32 levels' }],
      });
      // The body is level 1, so its context may be 31 levels deep.
      assert.equal((await post(nested(31))).statusCode, 200);
      const over = await post(nested(32));
      assert.deepEqual([over.statusCode, over.json().data], [400, [{ path: 'body.context', message: 'nests deeper than 32 levels' }]]);
      // Arrays count like objects, and the rule holds on every route.
      const array = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
      const clients = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/clients',
        headers: { 'content-type': 'application/json' },
        payload: `{"email":"a@b.test","customFields":${array}}`,
      });
      assert.deepEqual(
        [clients.statusCode, clients.json().data],
        [400, [{ path: 'body.customFields', message: 'nests deeper than 32 levels' }]],
      );
      const entries = await h.as(ws.apiKey, { method: 'GET', url: '/v1/audit-logs?eventType=customEvent' });
      assert.equal(entries.json().data.length, 1, 'nothing of the refused requests was written');
    });

    test('a context of 16,384 bytes of JSON is kept; 16,385 is a 400 naming body.context; so is an app event payload', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      const post = (context: unknown) =>
        h.as(ws.apiKey, { method: 'POST', url: '/v1/audit-logs', payload: { eventType: 'big', eventDescription: 'd', context } });
      assert.equal(JSON.stringify(contextOf(16_384)).length, 16_384);
      const fits = await post(contextOf(16_384));
      assert.equal(fits.statusCode, 200, fits.body);
      const over = await post(contextOf(16_385));
      assert.equal(over.statusCode, 400);
      assert.deepEqual(over.json(), {
        code: 'bad_request',
        message: 'body.context must be at most 16384 bytes of JSON',
        data: [{ path: 'body.context', message: 'must be at most 16384 bytes of JSON' }],
      });
      // Bytes, not characters: 8,193 two-byte characters are 16,386 bytes.
      const wide = await post({ pad: 'é'.repeat(8_193) });
      assert.equal(wide.statusCode, 400);
      const event = await h.as(ws.apiKey, { method: 'POST', url: '/v1/webhooks/big.event', payload: contextOf(16_385) });
      assert.equal(event.statusCode, 400);
      assert.deepEqual(event.json().data, [{ path: 'body', message: 'must be at most 16384 bytes of JSON' }]);
    });

    test('a page of the audit log stops before 4 MiB of stored JSON, with a nextToken; the pages hold every entry once', async (t) => {
      const { h, ws } = await workspaceHarness(t, backend);
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/audit-logs',
          payload: { eventType: `e${i}`, eventDescription: 'd', context: { i } },
        });
        assert.equal(res.statusCode, 200, res.body);
        ids.push(res.json().id);
        h.clock.advance(1000);
      }
      // Entries written before the cap could hold up to 1 MiB of context each.
      const legacy = JSON.stringify({ pad: 'y'.repeat(1024 * 1024) });
      await h.app.ctx.db.updateTable('audit_log').set({ context: legacy }).where('id', 'in', ids.slice(1, 7)).execute();
      const seen: string[] = [];
      const sizes: number[] = [];
      let next: string | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await h.as(ws.apiKey, {
          method: 'GET',
          url: `/v1/audit-logs?eventType=customEvent&limit=100${next ? `&nextToken=${encodeURIComponent(next)}` : ''}`,
        });
        assert.equal(res.statusCode, 200);
        sizes.push(res.json().data.length);
        seen.push(...res.json().data.map((entry: { id: string }) => entry.id));
        next = res.json().nextToken;
        if (!next) break;
      }
      assert.ok(PAGE_TEXT_BUDGET === 4 * 1024 * 1024);
      assert.deepEqual(sizes, [3, 4], 'newest first: three 1 MiB entries fit under 4 MiB, a fourth would not');
      assert.deepEqual(seen, [...ids].reverse(), 'every entry once, newest first');
    });
  });
}
