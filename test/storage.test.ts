import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, harness } from './helpers/harness.js';
import { readClientRow } from './helpers/internals.js';

/** Storage mechanics (src/db/prepared.ts, src/db/batch.ts). Prepared hot-path reads (src/db/prepared.ts) run outside transactions: they must never see uncommitted rows. */
for (const backend of BACKENDS) {
  describe(`prepared queries [${backend}]`, () => {
    test('a read beside an open transaction does not see its uncommitted rows, and sees them once committed', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const client = (
        await h.as(ws.apiKey, { method: 'POST', url: '/v1/clients', payload: { email: 'a@example.com', givenName: 'A', familyName: 'B' } })
      ).json();
      const db = h.app.ctx.db;
      const outcome = (rollback: boolean) =>
        db.transaction().execute(async (trx) => {
          await trx.updateTable('clients').set({ given_name: 'Uncommitted' }).where('id', '=', client.id).execute();
          const outside = readClientRow(db, ws.workspaceId, client.id); // started while the transaction is open
          const inside = await readClientRow(trx, ws.workspaceId, client.id);
          assert.equal(inside?.givenName, 'Uncommitted', 'the transaction sees its own write');
          await new Promise((r) => setTimeout(r, 20));
          if (rollback) throw Object.assign(new Error('rollback'), { outside });
          return { outside }; // wrapped: returning the promise itself would make the commit wait for it
        });
      const rolledBack = await outcome(true).catch((e: { outside: Promise<unknown> }) => e.outside);
      assert.equal(((await rolledBack) as { givenName: string }).givenName, 'A');
      const committed = await outcome(false);
      const seen = ((await committed.outside) as { givenName: string }).givenName;
      assert.ok(seen === 'A' || seen === 'Uncommitted', 'either the state before or after the commit, never a dirty read');
      assert.equal((await readClientRow(db, ws.workspaceId, client.id))?.givenName, 'Uncommitted');
    });
  });
}

for (const backend of BACKENDS) {
  describe(`write batches [${backend}]`, () => {
    test('concurrent batches commit together; a failing one rolls back alone and only its caller gets the error', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const emails = ['a', 'b', 'c', 'dup', 'd', 'dup', 'e', 'f', 'g', 'h'].map((n) => `${n}@example.com`);
      const responses = await Promise.all(
        emails.map((email) =>
          h.as(ws.apiKey, { method: 'POST', url: '/v1/clients', payload: { email, givenName: 'G', familyName: email } }),
        ),
      );
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [...Array(9).fill(200), 409]);
      const companies = (await h.as(ws.apiKey, { method: 'GET', url: '/v1/companies' })).json().data;
      assert.equal(companies.length, 9, "the failed batch's placeholder company was rolled back with it");
      const clients = (await h.as(ws.apiKey, { method: 'GET', url: '/v1/clients' })).json().data;
      assert.equal(clients.length, 9);
      const audit = await h.app.ctx.db
        .selectFrom('audit_log')
        .select('event_type')
        .where('workspace_id', '=', ws.workspaceId)
        .where('event_type', '=', 'clientCreated')
        .execute();
      assert.equal(audit.length, 9, 'no audit entry for the rolled-back create');
    });
  });
}
