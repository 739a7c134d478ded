// Rule (issue 45, point 1): `GET /v1/clients?q=` and `GET /v1/companies?q=` find, case-insensitively, the clients with
// a word of their name ("given family") starting with q, or whose e-mail does, and the companies with a word of their
// name starting with it; with the list's other filters, within what the caller sees (a limited internal user its
// companies', a client itself), newest first and paged with a nextToken bound to the query; renames and deletes are
// found as they are at once; another workspace's are never found; q is 1–100 characters of one line (400 naming
// query.q), and an empty q filters nothing, as every filter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { TEST_ADMIN_TOKEN, limitedUserSession } from '../../../../test/helpers/factories.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { BACKENDS } from '../../../../test/helpers/harness.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';
import type { Harness } from '../../../../test/helpers/types.js';
import { workspaceAccess } from '../../../lib/caller.js';
import { listClients } from './clients.repository.js';

/** Every page of a list, followed by its nextTokens: the items' e-mails in order. */
async function walk(h: Harness, key: string, url: string): Promise<string[]> {
  const emails: string[] = [];
  for (let token: string | undefined, first = true; first || token; first = false) {
    const page = okJson(await h.as(key, { method: 'GET', url: `${url}${token ? `&nextToken=${encodeURIComponent(token)}` : ''}` }));
    emails.push(...page.data.map((c: { email: string }) => c.email));
    token = page.nextToken;
  }
  return emails;
}

/** The plan of the page query a search runs (the last query: the first counts the matching terms), as the database explains it. */
async function searchPlan(h: Harness, workspaceId: string, q: string): Promise<string> {
  const nodes: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: ({ node }) => {
      nodes.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const db = h.app.ctx.db;
  await listClients(db.withPlugin(capture), workspaceAccess(workspaceId), { q }, h.app.ctx.pageTokens);
  const query = db.getExecutor().compileQuery(nodes[nodes.length - 1], { queryId: 'plan' });
  if (h.databaseUrl.startsWith('sqlite')) {
    const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]));
    return plan.rows.map((row) => row.detail).join('\n');
  }
  // As test/paging-plans.test.ts: sequential scans and sorts priced out, so a small table shows the plan a large one gets.
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_sort = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

for (const backend of BACKENDS) {
  describe(`directory search [${backend}]`, () => {
    async function world(t: Parameters<typeof moduleHarness>[0]) {
      const h = await moduleHarness(t, backend);
      const w = await acmeAndBeta(h); // Acme Co with ada (Ada L), Beta with bob (Bob B)
      const { call } = w;
      const client = async (givenName: string, familyName: string, email: string, companyId: string) => {
        h.clock.advance(1000); // newest first is creation order
        return okJson(await call('POST', '/v1/clients', { givenName, familyName, email, companyId }), `client ${email}`);
      };
      const lovelace = await client('Augusta Ada', 'Lovelace', 'countess@analytical.test', w.acme.id);
      const turing = await client('Alan', 'Turing', 'turing@bletchley.test', w.acme.id);
      const mary = await client('Mary Ann', 'O’Brien-Smith', 'mao@beta.test', w.beta.id);
      const zoe = await client('ZOË', 'Ünal', 'zoe@beta.test', w.beta.id);
      const find = async (query: string, key = w.ws.apiKey) => {
        const res = await h.as(key, { method: 'GET', url: `/v1/clients?${query}` });
        return okJson(res, query).data.map((c: { email: string }) => c.email);
      };
      return { ...w, h, lovelace, turing, mary, zoe, find };
    }

    test('clients by a prefix of any word of their name, of "given family", or of their e-mail, case-insensitively', async (t) => {
      const { find } = await world(t);
      assert.deepEqual(await find('q=ada'), ['countess@analytical.test', 'ada@Acme.test'], 'a given name’s first and second word');
      assert.deepEqual(await find('q=LOVE'), ['countess@analytical.test']);
      assert.deepEqual(await find('q=augusta%20ada%20lo'), ['countess@analytical.test'], 'words in order');
      assert.deepEqual(await find('q=augusta%20%20%20ADA'), ['countess@analytical.test'], 'white space runs as one');
      assert.deepEqual(await find('q=lovelace%20ada'), [], 'not out of order');
      assert.deepEqual(await find('q=tur'), ['turing@bletchley.test'], 'found by name and e-mail: once');
      assert.deepEqual(await find('q=brien'), ['mao@beta.test'], 'a word after an apostrophe');
      assert.deepEqual(await find('q=smi'), ['mao@beta.test'], 'a word after a hyphen');
      assert.deepEqual(await find('q=countess%40ana'), ['countess@analytical.test'], 'an e-mail address’s start');
      assert.deepEqual(await find('q=analytical'), [], 'not the middle of an address');
      assert.deepEqual(await find('q=%C3%BCn'), ['zoe@beta.test'], '“ün” finds Ünal');
      assert.deepEqual(await find('q=zo%C3%AB'), ['zoe@beta.test'], '“zoë” finds ZOË');
      assert.deepEqual(await find('q=x'), []);
      assert.deepEqual(
        await find('q=a'),
        ['mao@beta.test', 'turing@bletchley.test', 'countess@analytical.test', 'ada@Acme.test'],
        'Ann, Alan, Augusta/Ada/analytical, Ada: newest first',
      );
    });

    test('with the other filters, newest first, paged with a nextToken of its own query', async (t) => {
      const { h, ws, acme, find, call, ada } = await world(t);
      assert.deepEqual(await find(`q=a&companyId=${acme.id}`), ['turing@bletchley.test', 'countess@analytical.test', 'ada@Acme.test']);
      assert.deepEqual(await find('q=a&familyName=Turing'), ['turing@bletchley.test']);
      assert.deepEqual(await find('q=a&email=ADA@acme.test'), ['ada@Acme.test']);
      assert.deepEqual(await find('q=a&givenName=Bob'), []);
      assert.deepEqual(await find('q=&familyName=Turing'), ['turing@bletchley.test'], 'an empty q filters nothing');

      const first = okJson(await call('GET', '/v1/clients?q=a&limit=2'));
      assert.deepEqual(
        first.data.map((c: { email: string }) => c.email),
        ['mao@beta.test', 'turing@bletchley.test'],
      );
      assert.equal(typeof first.nextToken, 'string');
      h.clock.advance(1000);
      okJson(await call('POST', '/v1/clients', { givenName: 'Abe', familyName: 'New', email: 'abe@acme.test', companyId: acme.id }));
      const next = okJson(await call('GET', `/v1/clients?q=a&limit=2&nextToken=${encodeURIComponent(first.nextToken)}`));
      assert.deepEqual(
        next.data.map((c: { email: string }) => c.email),
        ['countess@analytical.test', 'ada@Acme.test'],
        'a client created meanwhile is before the position: nothing skipped, nothing repeated',
      );
      assert.equal(next.nextToken, undefined, 'the last page');
      for (const other of ['q=b', '', 'q=a&companyId=' + acme.id]) {
        const res = await h.as(ws.apiKey, { method: 'GET', url: `/v1/clients?${other}&nextToken=${encodeURIComponent(first.nextToken)}` });
        assertProblems(res, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]);
      }
      assert.equal(ada.email, 'ada@Acme.test');
    });

    test('within what the caller sees: a limited internal user its companies’ clients, a client itself; not another workspace’s', async (t) => {
      const { h, ws, app, beta, session, find } = await world(t);
      const { session: limited } = await limitedUserSession(h, ws.workspaceId, app.apiKey, [beta.id], 'lim@acme.test');
      assert.deepEqual(await find('q=a', limited), ['mao@beta.test'], 'Beta’s Mary Ann only');
      assert.deepEqual(await find('q=ada', limited), []);
      const clientId = (await h.as(ws.apiKey, { method: 'GET', url: '/v1/clients?email=ada@acme.test' })).json().data[0].id;
      const own = await session({ clientId });
      assert.deepEqual(await find('q=a', own), ['ada@Acme.test'], 'a client finds itself');
      assert.deepEqual(await find('q=tur', own), []);
      const other = await h.workspace('Other');
      okJson(
        await h.as(other.apiKey, {
          method: 'POST',
          url: '/v1/clients',
          payload: { givenName: 'Ada', familyName: 'Elsewhere', email: 'e@o.test' },
        }),
      );
      assert.deepEqual(await find('q=ada'), ['countess@analytical.test', 'ada@Acme.test'], 'not the other workspace’s Ada');
      assert.deepEqual(await find('q=ada', other.apiKey), ['e@o.test']);
    });

    test('a renamed client is found by its new name at once, a deleted one no more', async (t) => {
      const { call, find, lovelace, turing } = await world(t);
      okJson(await call('PATCH', `/v1/clients/${lovelace.id}`, { givenName: 'Countess' }));
      assert.deepEqual(await find('q=augusta'), []);
      assert.deepEqual(await find('q=countess%20lov'), ['countess@analytical.test']);
      okJson(await call('PUT', `/v1/clients/${lovelace.id}`, { givenName: 'Ada', familyName: 'King', companyId: lovelace.companyId }));
      assert.deepEqual(await find('q=lovelace'), []);
      assert.deepEqual(await find('q=king'), ['countess@analytical.test']);
      okJson(await call('DELETE', `/v1/clients/${turing.id}`));
      assert.deepEqual(await find('q=tur'), []);
    });

    test('q: 1–100 characters of one line, else a 400 naming query.q', async (t) => {
      const { call, find } = await world(t);
      assert.deepEqual(await find(`q=${'a'.repeat(100)}`), []);
      for (const path of ['/v1/clients', '/v1/companies']) {
        const long = await call('GET', `${path}?q=${'a'.repeat(101)}`);
        assertProblems(long, [{ path: 'query.q', message: 'must NOT have more than 100 characters' }]);
        for (const blank of ['%20%20', '%09']) {
          const res = await call('GET', `${path}?q=${blank}`);
          assert.equal(res.statusCode, 400, res.body);
          assert.deepEqual(
            res.json().data.map((p: { path: string }) => p.path),
            ['query.q'],
          );
        }
        const twoLines = await call('GET', `${path}?q=a%0Ab`);
        assert.equal(twoLines.statusCode, 400, twoLines.body);
      }
    });

    test('a common prefix reads the list’s order, a rare one the terms’ range: one answer either way, paged whole', async (t) => {
      const h = await moduleHarness(t, backend);
      const ws = await h.workspace();
      // 800 clients in one import (the CSV workflow writes their terms too): each with three terms starting with "a".
      const rows = Array.from({ length: 800 }, (_, i) => `a${i}@imported.test,Ab${i},Ac${i}`).join('\n');
      const imported = await h.app.inject({
        method: 'POST',
        url: `/admin/workspaces/${ws.workspaceId}/imports/clients`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'text/csv' },
        payload: `email,givenName,familyName\n${rows}\n`,
      });
      assert.equal(imported.statusCode, 200, imported.body);
      const everyone = await walk(h, ws.apiKey, '/v1/clients?limit=1000');
      assert.equal(everyone.length, 800);
      const expected = (prefix: string) =>
        everyone.filter((email) => {
          const i = email.slice(1, email.indexOf('@'));
          return [`ab${i} ac${i}`, `ac${i}`, email].some((term) => term.startsWith(prefix));
        });
      for (const [q, plan] of [
        ['a', 'common'],
        ['ab1', 'rare'],
        ['ac79', 'rare'],
        ['a1@', 'rare'],
      ] as const) {
        const found = await walk(h, ws.apiKey, `/v1/clients?q=${encodeURIComponent(q)}&limit=300`);
        assert.deepEqual(found, expected(q), `q=${q}: every match, newest first, once`);
        const explained = await searchPlan(h, ws.workspaceId, q);
        if (plan === 'common') {
          // The list's own index, newest first, each client's terms probed: no sort.
          assert.match(
            explained,
            backend === 'sqlite' ? /SEARCH clients USING INDEX clients_page/ : /Index Scan Backward using clients_page/,
          );
          assert.match(explained, /client_search_terms_owner/, explained);
          assert.doesNotMatch(explained, backend === 'sqlite' ? /TEMP B-TREE FOR ORDER BY/ : /(^|->\s*)Sort\b/m, explained);
        } else {
          // The matching terms as a range of the primary key.
          assert.match(explained, backend === 'sqlite' ? /sqlite_autoindex_client_search_terms_1/ : /client_search_terms_pk/, explained);
        }
      }
      assert.equal(expected('ab1').length, 111, 'ab1, ab10–ab19, ab100–ab199');
    });

    test('companies by a prefix of any word of their name, with the filters, paged, within what the caller sees', async (t) => {
      const { h, ws, app, call, beta } = await world(t);
      const company = async (name: string) => {
        h.clock.advance(1000);
        return okJson(await call('POST', '/v1/companies', { name }), name);
      };
      const gamma = await company('Beta-Gamma Ltd');
      await company('Acme Widgets');
      const findCompanies = async (query: string, key = ws.apiKey) =>
        okJson(await h.as(key, { method: 'GET', url: `/v1/companies?${query}` }), query).data.map((c: { name: string }) => c.name);
      assert.deepEqual(await findCompanies('q=ac'), ['Acme Widgets', 'Acme Co']);
      assert.deepEqual(await findCompanies('q=ACME%20c'), ['Acme Co']);
      assert.deepEqual(await findCompanies('q=gam'), ['Beta-Gamma Ltd']);
      assert.deepEqual(await findCompanies('q=beta'), ['Beta-Gamma Ltd', 'Beta']);
      assert.deepEqual(await findCompanies('q=beta&name=Beta'), ['Beta']);
      assert.deepEqual(await findCompanies('q=w&isPlaceholder=false'), ['Acme Widgets']);
      // A client without a company gets a placeholder named after it: found too, and by isPlaceholder.
      okJson(await call('POST', '/v1/clients', { givenName: 'Wendy', familyName: 'Solo', email: 'wendy@solo.test' }));
      assert.deepEqual(await findCompanies('q=w&isPlaceholder=true'), ['Wendy Solo']);
      const first = okJson(await call('GET', '/v1/companies?q=a&limit=1'));
      assert.deepEqual(
        first.data.map((c: { name: string }) => c.name),
        ['Acme Widgets'],
      );
      const rest = okJson(await call('GET', `/v1/companies?q=a&limit=5&nextToken=${encodeURIComponent(first.nextToken)}`));
      assert.deepEqual(
        rest.data.map((c: { name: string }) => c.name),
        ['Acme Co'],
      );
      okJson(await call('PATCH', `/v1/companies/${gamma.id}`, { name: 'Delta Ltd' }));
      assert.deepEqual(await findCompanies('q=gam'), []);
      assert.deepEqual(await findCompanies('q=del'), ['Delta Ltd']);
      okJson(await call('DELETE', `/v1/companies/${gamma.id}`));
      assert.deepEqual(await findCompanies('q=del'), []);
      const { session: limited } = await limitedUserSession(h, ws.workspaceId, app.apiKey, [beta.id], 'lim@acme.test');
      assert.deepEqual(await findCompanies('q=a', limited), [], 'Acme’s are not its');
      assert.deepEqual(await findCompanies('q=b', limited), ['Beta']);
      const other = await h.workspace('Other');
      assert.deepEqual(await findCompanies('q=a', other.apiKey), []);
    });
  });
}
