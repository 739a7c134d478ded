import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { describe, test } from 'node:test';
import { BACKENDS, harness } from '../../test/helpers/harness.js';
import { isoAt } from '../lib/clock.js';
import { type FullRow, preparedWrite } from './prepared.js';
import type { DB } from './schema.js';
import { unitOfWork } from './unit-of-work.js';

/** A company's whole row, as the tests here write it. */
const companyRow = (workspaceId: string, at: string, id: string, name: string): FullRow<'companies'> => ({
  id,
  workspace_id: workspaceId,
  name,
  name_key: name.toLowerCase(),
  fallback_color: '#000000',
  icon_image_url: null,
  is_placeholder: 0,
  custom_fields: '{}',
  created_at: at,
  updated_at: at,
});

/** The names of a workspace's companies, in order. */
const companyNames = async (db: Kysely<DB>, workspaceId: string) =>
  (await db.selectFrom('companies').select('name').where('workspace_id', '=', workspaceId).orderBy('name').execute()).map((r) => r.name);

const insertCompany = preparedWrite('test_insert_company', (db, row: FullRow<'companies'>) => db.insertInto('companies').values(row));

/** The unit of work (src/db/unit-of-work.ts): all or nothing, onCommit only after a commit, constraint errors mapped. */
for (const backend of BACKENDS) {
  for (const transaction of [false, true]) {
    describe(`unit of work${transaction ? ' (transaction)' : ''} [${backend}]`, () => {
      async function setup(t: import('node:test').TestContext) {
        const h = await harness(t, backend);
        const ws = await h.workspace();
        const database = h.app.ctx.database;
        const at = isoAt(h.clock.now());
        const company = (id: string, name: string) => database.db.insertInto('companies').values(companyRow(ws.workspaceId, at, id, name));
        const names = (db = database.db) => companyNames(db, ws.workspaceId);
        const prepared = (id: string, name: string) => insertCompany(database.db, companyRow(ws.workspaceId, at, id, name));
        return { database, company, prepared, names };
      }

      test('a prepared write is compiled once (one SQL text), binds the values of each call, and commits like any write', async (t) => {
        const { database, prepared, names } = await setup(t);
        const first = prepared('00000000-0000-4000-8000-000000000001', 'A');
        const second = prepared('00000000-0000-4000-8000-000000000002', 'B');
        assert.equal(first.sql, second.sql);
        assert.equal(first.name, 'test_insert_company');
        assert.ok(first.parameters.includes('A') && second.parameters.includes('B') && !second.parameters.includes('A'));
        await unitOfWork(
          database,
          async (work) => {
            work.write(first);
            work.write(second);
          },
          { transaction },
        );
        assert.deepEqual(await names(), ['A', 'B']);
      });

      test('writes commit together, and onCommit callbacks run after the commit, in order', async (t) => {
        const { database, company, names } = await setup(t);
        const seen: string[] = [];
        const result = await unitOfWork(
          database,
          async (work) => {
            work.write(company('00000000-0000-4000-8000-000000000001', 'A'));
            work.onCommit(() => seen.push('first'));
            work.write(company('00000000-0000-4000-8000-000000000002', 'B'));
            work.onCommit(() => seen.push('second'));
            assert.deepEqual(await names(work.db), [], 'nothing is written before the unit ends');
            assert.deepEqual(seen, [], 'no callback before the commit');
            return 'done';
          },
          { transaction },
        );
        assert.equal(result, 'done');
        assert.deepEqual(seen, ['first', 'second']);
        assert.deepEqual(await names(), ['A', 'B']);
      });

      test('a unit whose function throws writes nothing and runs no callback', async (t) => {
        const { database, company, names } = await setup(t);
        let ran = false;
        const failing = unitOfWork(
          database,
          async (work) => {
            work.write(company('00000000-0000-4000-8000-000000000001', 'A'));
            work.onCommit(() => (ran = true));
            throw new Error('the rule failed');
          },
          { transaction },
        );
        await assert.rejects(failing, { message: 'the rule failed' });
        assert.equal(ran, false);
        assert.deepEqual(await names(), []);
      });

      test('a failing write rolls the whole unit back; a declared constraint becomes its API error, no callback runs', async (t) => {
        const { database, company, names } = await setup(t);
        await unitOfWork(database, async (work) => work.write(company('00000000-0000-4000-8000-000000000001', 'Taken')));
        let ran = false;
        const duplicate = unitOfWork(
          database,
          async (work) => {
            work.write(company('00000000-0000-4000-8000-000000000002', 'Fresh'));
            work.write(company('00000000-0000-4000-8000-000000000003', 'taken'), { companies_name_unique: 'taken' });
            work.onCommit(() => (ran = true));
          },
          { transaction },
        );
        await assert.rejects(duplicate, { statusCode: 409, code: 'conflict', message: 'A company named "taken" already exists.' });
        assert.equal(ran, false);
        assert.deepEqual(await names(), ['Taken'], 'the first write of the failed unit was rolled back with it');
        // Undeclared, the driver's error passes through (the error plugin answers a generic 409).
        const undeclared = unitOfWork(database, async (work) => work.write(company('00000000-0000-4000-8000-000000000004', 'TAKEN')), {
          transaction,
        });
        await assert.rejects(undeclared, (error: { statusCode?: number }) => error.statusCode === undefined);
      });
    });
  }
}

/** SQLite's group commit (db/sqlite.ts): units committed in one turn share a transaction, each in its own savepoint. */
for (const backend of BACKENDS) {
  test(`concurrent units commit together; a failing one rolls back alone and fails only its caller [${backend}]`, async (t) => {
    const h = await harness(t, backend);
    const ws = await h.workspace();
    const database = h.app.ctx.database;
    const at = isoAt(h.clock.now());
    const unit = (n: number, name: string) =>
      unitOfWork(database, async (work) => {
        const id = (k: number) => `00000000-0000-4000-8000-${String(n * 10 + k).padStart(12, '0')}`;
        work.write(insertCompany(work.db, companyRow(ws.workspaceId, at, id(1), `${name} #${n}`)));
        work.write(insertCompany(work.db, companyRow(ws.workspaceId, at, id(2), name)), { companies_name_unique: name });
      });
    // PostgreSQL runs each unit in a transaction of its own: which of two conflicting units commits first is
    // the server's choice, so there the first unit commits before the other three start together.
    const first = backend === 'postgres' ? await Promise.allSettled([unit(1, 'One')]) : [];
    const rest = () => [unit(2, 'Two'), unit(3, 'one'), unit(4, 'Four')];
    const results = await Promise.allSettled(first.length > 0 ? rest() : [unit(1, 'One'), ...rest()]).then((settled) => [
      ...first,
      ...settled,
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual((results[2] as PromiseRejectedResult).reason.message, 'A company named "one" already exists.');
    assert.deepEqual(
      await companyNames(database.db, ws.workspaceId),
      ['Four', 'Four #4', 'One', 'One #1', 'Two', 'Two #2'],
      'the failing unit’s first write was rolled back with it',
    );
  });
}

/**
 * UnitOfWork.writeReturning: a counter taken in the commit feeds the writes its continuation queues. In a
 * group where another unit fails (SQLite runs the group again, each unit in a savepoint), the numbers stay
 * without gaps and no continuation's writes are made twice.
 */
for (const backend of BACKENDS) {
  test(`numbers taken in the commit have no gaps and their writes are made once, beside a failing unit [${backend}]`, async (t) => {
    const h = await harness(t, backend);
    const ws = await h.workspace();
    const database = h.app.ctx.database;
    const at = isoAt(h.clock.now());
    const named = (name: string) => companyRow(ws.workspaceId, at, crypto.randomUUID(), name);
    await unitOfWork(database, async (work) => work.write(insertCompany(work.db, named('Taken'))));
    const numbered = () =>
      unitOfWork(database, async (work) =>
        work.writeReturning(
          work.db
            .insertInto('invoice_counters')
            .values({ workspace_id: ws.workspaceId, last_number: 1 })
            .onConflict((oc) =>
              oc.column('workspace_id').doUpdateSet((eb) => ({ last_number: eb('invoice_counters.last_number', '+', 1) })),
            )
            .returning('last_number')
            .compile(),
          (row) => {
            const number = Number(row?.last_number);
            work.write(insertCompany(work.db, named(`Numbered ${number}`)));
            return number;
          },
        ),
      );
    const failing = () => unitOfWork(database, async (work) => work.write(insertCompany(work.db, named('taken'))));
    // In this order: on SQLite the first unit's continuation has run when the second fails.
    const settled = await Promise.allSettled([numbered(), failing(), numbered(), numbered()]);
    assert.deepEqual(
      settled.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const numbers = settled.flatMap((r) => (r.status === 'fulfilled' ? [(r.value as () => number)()] : []));
    assert.deepEqual([...numbers].sort(), [1, 2, 3]);
    assert.deepEqual(await companyNames(database.db, ws.workspaceId), ['Numbered 1', 'Numbered 2', 'Numbered 3', 'Taken']);
  });
}
