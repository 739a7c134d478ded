// A page's items are let go of once its bytes are made (src/db/paging.ts releaseServedPage, called by the response
// serializers of src/plugins/validation.ts): a request that waited on
// PostgreSQL's pool resolves promises V8 has already promoted, and a dead old object pointing at the page kept all of
// it alive through every scavenge (bench/README.md, 2026-11-30). The rule: a page made by pageOf is emptied after it is
// serialized, and its answer is whole; any other payload, a shared array above all, is left as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/open.js';
import { type Page, PageTokens, fetchPage, isMadePage } from '../src/db/paging.js';
import { lazySerializers } from '../src/plugins/validation.js';

test('a page made by pageOf is served whole, then emptied; a shared array in a payload is left as it was', async (t) => {
  const database = openDatabase('sqlite::memory:');
  t.after(() => database.close());
  const { db } = database;
  await sql`create table items (id text primary key, created_at text not null, name text not null)`.execute(db);
  await sql`insert into items values ('a', '2026-01-01', 'first'), ('b', '2026-01-02', 'second'), ('c', '2026-01-03', 'third')`.execute(db);
  // biome-ignore lint/suspicious/noExplicitAny: a table of this test's own, outside the schema's types
  const items = (db as any).selectFrom('items').selectAll('items');
  const made: Page<{ id: string; name: string }> = await fetchPage(
    items,
    'items',
    { limit: 2 },
    new PageTokens('secret'),
    'items',
    (row: { id: string; created_at: string; name?: string }) => ({ id: row.id, name: String(row.name) }),
  );
  assert.equal(isMadePage(made), true);
  const shared = [{ id: 'x', name: 'shared' }];
  const built = { data: shared };
  assert.equal(isMadePage(built), false);

  // The serializers the app builds (src/app.ts), and a response schema for each route, as every route has.
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializers } } });
  t.after(() => app.close());
  const Item = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } };
  const schema = {
    response: { 200: { type: 'object', properties: { data: { type: 'array', items: Item }, nextToken: { type: 'string' } } } },
  };
  app.get('/made', { schema }, async () => made);
  app.get('/shared', { schema }, async () => built);

  const madeAnswer = await app.inject({ method: 'GET', url: '/made' });
  assert.equal(madeAnswer.statusCode, 200);
  const body = madeAnswer.json();
  assert.deepEqual(body.data, [
    { id: 'c', name: 'third' },
    { id: 'b', name: 'second' },
  ]);
  assert.equal(typeof body.nextToken, 'string');
  assert.deepEqual(made.data, [], 'the made page is emptied once serialized');
  assert.equal(made.nextToken, body.nextToken);

  const sharedAnswer = await app.inject({ method: 'GET', url: '/shared' });
  assert.equal(sharedAnswer.statusCode, 200);
  assert.deepEqual(sharedAnswer.json(), { data: [{ id: 'x', name: 'shared' }] });
  assert.deepEqual(shared, [{ id: 'x', name: 'shared' }], 'an array the route shares is not touched');
});
