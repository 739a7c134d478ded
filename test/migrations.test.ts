import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../src/db/open.js';
import { migrateToLatest, migrateUpTo } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { uuidV5 } from '../src/lib/uuid-v5.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`migrations [${backend}]`, () => {
    test('applied once in order, then a second run is a no-op', async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      assert.deepEqual(await migrateToLatest(database), Object.keys(MIGRATIONS));
      const secret = await database.db.selectFrom('server_secrets').selectAll().execute();
      assert.deepEqual(await migrateToLatest(database), []);
      assert.deepEqual(await database.db.selectFrom('server_secrets').selectAll().execute(), secret, 'secrets kept');
    });

    test('installs: every workspace that existed before gets the core modules', async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      await migrateUpTo(database, '2026-11-23-01-idempotency');
      const id = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration, not as typed today
      await (database.db as Kysely<any>).insertInto('workspaces').values({ id, name: 'W', created_at: 'x', updated_at: 'x' }).execute();
      await migrateUpTo(database, '2026-11-23-02-installs');
      const rows = await database.db
        .selectFrom('installs')
        .select(['id', 'type', 'sort', 'sort_key'])
        .where('workspace_id', '=', id)
        .orderBy('sort')
        .execute();
      const modules = ['messages', 'files', 'forms', 'contracts', 'billing', 'helpdesk', 'tasks'];
      const expected = modules.map((module, sort) => ({
        id: uuidV5(module, id),
        type: 'core',
        sort,
        sort_key: String(sort).padStart(10, '0'),
      }));
      assert.deepEqual(rows, expected);
    });

    test("paging indexes: memberships written before it get their client's created_at", async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      await migrateUpTo(database, '2026-11-22-04-identity');
      // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration, not as typed today
      const db = database.db as Kysely<any>;
      const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
      await db
        .insertInto('workspaces')
        .values({ id: 'w', name: 'W', created_at: at(0), updated_at: at(0) })
        .execute();
      await db
        .insertInto('companies')
        .values({ id: 'co', workspace_id: 'w', name: 'Co', fallback_color: '#000000', created_at: at(0), updated_at: at(0) })
        .execute();
      for (const [id, minute] of [
        ['a', 1],
        ['b', 2],
      ] as const) {
        const person = {
          email: `${id}@x.y`,
          email_key: `${id}@x.y`,
          given_name: id,
          family_name: id,
          status: 'active',
          creation_method: 'api',
        };
        await db
          .insertInto('clients')
          .values({ id, workspace_id: 'w', ...person, company_id: 'co', company_ids: 'co', created_at: at(minute), updated_at: at(minute) })
          .execute();
        await db.insertInto('client_companies').values({ workspace_id: 'w', client_id: id, company_id: 'co' }).execute();
      }
      assert.deepEqual(await migrateUpTo(database, '2026-11-22-05-paging-indexes'), ['2026-11-22-05-paging-indexes']);
      const rows = await database.db
        .selectFrom('client_companies')
        .select(['client_id', 'client_created_at'])
        .orderBy('client_id')
        .execute();
      assert.deepEqual(rows, [
        { client_id: 'a', client_created_at: at(1) },
        { client_id: 'b', client_created_at: at(2) },
      ]);
    });

    test('invoice drafts: invoices keep their numbers and payments, drafts may have none, a number stays unique per workspace', async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      const names = Object.keys(MIGRATIONS);
      await migrateUpTo(database, names[names.indexOf('2026-11-25-17-invoice-drafts') - 1]);
      // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration, not as typed today
      const db = database.db as Kysely<any>;
      const workspace = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      await db.insertInto('workspaces').values({ id: workspace, name: 'W', created_at: 'x', updated_at: 'x' }).execute();
      const invoice = (id: string, number: number | null) => ({
        id,
        workspace_id: workspace,
        number,
        company_id: 'c',
        status: 'open',
        terms: '{}',
        subtotal: 1,
        tax_amount: 0,
        total: 1,
        due_date: 'x',
        billing_reason: 'manual',
        collection_method: 'sendInvoice',
        created_at: 'x',
        updated_at: 'x',
      });
      await db.insertInto('invoices').values(invoice('i7', 7)).execute();
      const payment = {
        id: 'p',
        workspace_id: workspace,
        invoice_id: 'i7',
        status: 'succeeded',
        amount: 1,
        payment_method: 'manual',
        created_at: 'x',
        updated_at: 'x',
      };
      await db.insertInto('payments').values(payment).execute();
      assert.deepEqual(await migrateUpTo(database, '2026-11-25-17-invoice-drafts'), ['2026-11-25-17-invoice-drafts']);
      assert.deepEqual(await db.selectFrom('invoices').select(['id', 'number']).execute(), [{ id: 'i7', number: 7 }]);
      assert.equal((await db.selectFrom('payments').select('id').execute()).length, 1, 'the payment stayed');
      await db
        .insertInto('invoices')
        .values([invoice('d1', null), invoice('d2', null)])
        .execute();
      await assert.rejects(db.insertInto('invoices').values(invoice('dup', 7)).execute(), /unique|UNIQUE/);
    });

    test('message sequence: messages written before are numbered per workspace in their list order, and the counters go on from there', async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      await migrateUpTo(database, '2026-11-28-20-app-sessions-of-sign-ins');
      // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration, not as typed today
      const db = database.db as Kysely<any>;
      const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
      for (const id of ['w1', 'w2']) {
        await db
          .insertInto('workspaces')
          .values({ id, name: id, created_at: at(0), updated_at: at(0) })
          .execute();
        await db
          .insertInto('companies')
          .values({ id: `${id}-co`, workspace_id: id, name: 'Co', fallback_color: '#000000', created_at: at(0), updated_at: at(0) })
          .execute();
        await db
          .insertInto('message_channels')
          .values({
            id: `${id}-ch`,
            workspace_id: id,
            membership_type: 'company',
            company_id: `${id}-co`,
            member_ids: '',
            created_at: at(0),
            updated_at: at(0),
          })
          .execute();
      }
      const message = (id: string, workspace: string, second: number) => ({
        id,
        workspace_id: workspace,
        channel_id: `${workspace}-ch`,
        sender_id: 's',
        sender_type: 'internalUser',
        text: id,
        created_at: at(second),
        updated_at: at(second),
      });
      await db
        .insertInto('messages')
        .values([message('b', 'w1', 2), message('a', 'w1', 2), message('c', 'w1', 1), message('d', 'w2', 5)])
        .execute();
      assert.deepEqual(await migrateUpTo(database, '2026-11-28-30-message-sequence'), ['2026-11-28-30-message-sequence']);
      assert.deepEqual(
        await db.selectFrom('messages').select(['id', 'seq']).orderBy('workspace_id').orderBy('seq').execute(),
        [
          { id: 'c', seq: 1 },
          { id: 'a', seq: 2 },
          { id: 'b', seq: 3 },
          { id: 'd', seq: 1 },
        ],
        'oldest first, by (created_at, id), in each workspace',
      );
      assert.deepEqual(await db.selectFrom('message_sequences').selectAll().orderBy('workspace_id').execute(), [
        { workspace_id: 'w1', last_seq: 3 },
        { workspace_id: 'w2', last_seq: 1 },
      ]);
      await assert.rejects(
        db
          .insertInto('messages')
          .values({ ...message('e', 'w2', 6), seq: 1 })
          .execute(),
        /unique|UNIQUE/,
      );
    });

    test('search and inbox: clients and companies written before are found by their terms; channels get their activity key', async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      await migrateUpTo(database, '2026-11-29-42-workspace-logos');
      // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration, not as typed today
      const db = database.db as Kysely<any>;
      const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
      await db
        .insertInto('workspaces')
        .values({ id: 'w', name: 'W', created_at: at(0), updated_at: at(0) })
        .execute();
      const company = (id: string, name: string) => ({
        id,
        workspace_id: 'w',
        name,
        fallback_color: '#000000',
        created_at: at(0),
        updated_at: at(0),
      });
      await db
        .insertInto('companies')
        .values([company('co', 'Acme Widgets'), company('c2', 'Ünal & Söhne')])
        .execute();
      const client = (id: string, given: string, family: string, email: string) => ({
        id,
        workspace_id: 'w',
        email,
        email_key: email.toLowerCase(),
        given_name: given,
        family_name: family,
        company_id: 'co',
        company_ids: 'co',
        status: 'notInvited',
        creation_method: 'internalUser',
        custom_fields: '{}',
        created_at: at(0),
        updated_at: at(0),
      });
      await db
        .insertInto('clients')
        .values([client('a', 'Ada', 'Lovelace', 'Ada@x.test'), client('b', 'Mary Ann', 'O’Brien', 'm@x.test')])
        .execute();
      const channel = (id: string, created: number, last: number | null) => ({
        id,
        workspace_id: 'w',
        membership_type: 'company',
        company_id: 'co',
        member_ids: '',
        last_message_date: last === null ? null : at(last),
        created_at: at(created),
        updated_at: at(created),
      });
      await db
        .insertInto('message_channels')
        .values([channel('ch1', 1, 5), channel('ch2', 2, null)])
        .execute();
      assert.deepEqual(await migrateUpTo(database, '2026-11-29-44-search-and-inbox'), ['2026-11-29-44-search-and-inbox']);
      const terms = (table: string, owner: string) =>
        db.selectFrom(table).select(['workspace_id', 'term', owner]).orderBy(owner).orderBy('term').execute();
      assert.deepEqual(await terms('client_search_terms', 'client_id'), [
        { workspace_id: 'w', term: 'ada lovelace', client_id: 'a' },
        { workspace_id: 'w', term: 'ada@x.test', client_id: 'a' },
        { workspace_id: 'w', term: 'lovelace', client_id: 'a' },
        { workspace_id: 'w', term: 'ann o’brien', client_id: 'b' },
        { workspace_id: 'w', term: 'brien', client_id: 'b' },
        { workspace_id: 'w', term: 'm@x.test', client_id: 'b' },
        { workspace_id: 'w', term: 'mary ann o’brien', client_id: 'b' },
        { workspace_id: 'w', term: 'o’brien', client_id: 'b' },
      ]);
      assert.deepEqual(await terms('company_search_terms', 'company_id'), [
        { workspace_id: 'w', term: 'söhne', company_id: 'c2' },
        { workspace_id: 'w', term: 'ünal & söhne', company_id: 'c2' },
        { workspace_id: 'w', term: 'acme widgets', company_id: 'co' },
        { workspace_id: 'w', term: 'widgets', company_id: 'co' },
      ]);
      assert.deepEqual(await db.selectFrom('message_channels').select(['id', 'activity_key']).orderBy('activity_key', 'desc').execute(), [
        { id: 'ch1', activity_key: `m${at(5)}` },
        { id: 'ch2', activity_key: `c${at(2)}` },
      ]);
      // A term compares by code point on both: "ü" (U+00FC) after "z", whatever the database's own collation.
      const after = await db.selectFrom('company_search_terms').select('term').where('term', '>', 'zz').orderBy('term').execute();
      assert.deepEqual(
        after.map((row) => row.term),
        ['ünal & söhne'],
      );
      if (backend === 'postgres') {
        const collations = await sql<{ table_name: string; column_name: string; collation_name: string }>`
          select table_name, column_name, collation_name from information_schema.columns
          where table_schema = current_schema() and column_name in ('term', 'activity_key') order by table_name`.execute(db);
        assert.deepEqual(collations.rows, [
          { table_name: 'client_search_terms', column_name: 'term', collation_name: 'C' },
          { table_name: 'company_search_terms', column_name: 'term', collation_name: 'C' },
          { table_name: 'message_channels', column_name: 'activity_key', collation_name: 'C' },
        ]);
      }
    });
  });
}
