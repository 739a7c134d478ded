import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, harness } from '../../test/helpers/harness.js';
import { isoAt } from '../lib/clock.js';
import { unitOfWork } from './unit-of-work.js';

/** The unit of work (src/db/unit-of-work.ts): all or nothing, onCommit only after a commit, constraint errors mapped. */
for (const backend of BACKENDS) {
  for (const transaction of [false, true]) {
    describe(`unit of work${transaction ? ' (transaction)' : ''} [${backend}]`, () => {
      async function setup(t: import('node:test').TestContext) {
        const h = await harness(t, backend);
        const ws = await h.workspace();
        const database = h.app.ctx.database;
        const at = isoAt(h.clock.now());
        const company = (id: string, name: string) =>
          database.db.insertInto('companies').values({
            id,
            workspace_id: ws.workspaceId,
            name,
            name_key: name.toLowerCase(),
            fallback_color: '#000000',
            icon_image_url: null,
            is_placeholder: 0,
            custom_fields: '{}',
            created_at: at,
            updated_at: at,
          });
        const names = async (db = database.db) =>
          (await db.selectFrom('companies').select('name').where('workspace_id', '=', ws.workspaceId).orderBy('name').execute()).map(
            (r) => r.name,
          );
        return { database, company, names };
      }

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
