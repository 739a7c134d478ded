// Issue 29, point 10: ids in paths are parsed in one place, by one rule (PathId, IdParams in src/lib/schemas.ts): compared
// exactly as the API answers them (lower-case UUIDs), never case-folded. `GET /v1/notes/<UPPER-CASE UUID>` answered 200
// while the same form on clients and companies was a 404; now every route answers the upper-case form of an existing
// id as it answers an unknown id. Walked over every operation of the OpenAPI document with an id in its path, /v1 and
// /admin, so a route added later is held to the rule without being named here. Issue 42, point 12: so are the ids no
// route can take (a NUL, over 100 characters, not UTF-8), 400s as docs/api.md says.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { BACKENDS, TEST_ADMIN_TOKEN, adminHarness } from './helpers/harness.js';
import { type Operation, type World, openapiDocument, operationsOf, principalWorld, sampleOf } from './helpers/principal-world.js';

/** Path parameters that are names the caller chooses, not ids of objects. */
const NOT_IDS = new Set(['{event}', '{fileType}']);

/** The ids of this workspace's objects a path parameter can name: `{id}` by the resource it follows, the others by name. */
async function knownIds(w: World) {
  const installs = await w.call('workspace key', { method: 'GET', url: '/v1/installs' });
  assert.equal(installs.statusCode, 200, installs.body);
  const byName: Record<string, string> = {
    '{workspaceId}': w.ws.workspaceId,
    '{installId}': installs.json().data[0].id,
    '{keyId}': w.app.apiKeyId,
  };
  return (op: Operation, param: string): string | undefined => {
    if (param !== '{id}') return byName[param];
    const segments = op.path.split('/');
    // `/v1/<resource>/{id}…`, `/v1/channels/files/{id}`; the signed content URLs name files.
    const resource = op.path.startsWith('/files/') ? 'files' : segments[2];
    return w.ids[resource];
  };
}

/** Calls the operation with each path parameter replaced as `value` says; the admin surface with its token. */
function caller(w: World, h: Awaited<ReturnType<typeof adminHarness>>) {
  return async (op: Operation, value: (param: string) => string, query = ''): Promise<LightMyRequestResponse> => {
    const url = op.path.replace(/\{[^}]+\}/g, (param) => value(param)) + query;
    const body = op.body === undefined ? undefined : (sampleOf(op.body) as object);
    const options: InjectOptions = { method: op.method as InjectOptions['method'], url, ...(body !== undefined ? { payload: body } : {}) };
    return op.path.startsWith('/admin/')
      ? h.app.inject({ ...options, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
      : w.call('workspace key', options);
  };
}

const NAMES = { notes: 'Note', clients: 'Client', companies: 'Company' };

for (const backend of BACKENDS) {
  describe(`ids in paths: one rule for every route [${backend}]`, () => {
    test('on every /v1 and /admin operation, the upper-case form of an existing id answers as an unknown id does (404)', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await principalWorld(h);
      const known = await knownIds(w);
      const call = caller(w, h);
      // A signed download URL of the walked file: its query is kept, its id changed.
      const signed = await w.call('workspace key', { method: 'GET', url: `/v1/files/${w.ids.files}/download-url` });
      assert.equal(signed.statusCode, 200, signed.body);
      const signedQuery = new URL(signed.json().downloadUrl).search;

      // Deletes last, so that a route that case-folds and deletes cannot hide the objects the other routes name.
      // The signed upload URL takes a pending file's content: a walked file has its content (files.test.ts covers it).
      const operations = operationsOf(await openapiDocument(h))
        .filter((op) => ((op.path.startsWith('/v1/') || op.path.startsWith('/admin/')) && !op.open) || op.path === '/files/downloads/{id}')
        .filter((op) => (op.path.match(/\{[^}]+\}/g) ?? []).some((p) => !NOT_IDS.has(p)))
        .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
      assert.ok(operations.length >= 60, `the walk covers the routes with ids (${operations.length})`);
      let upperCased = 0;
      for (const op of operations) {
        const params = (op.path.match(/\{[^}]+\}/g) ?? []).filter((p) => !NOT_IDS.has(p));
        const query = op.path === '/files/downloads/{id}' ? signedQuery : '';
        const lower = (param: string) => known(op, param) ?? randomUUID();
        if (op.method === 'GET' && params.every((p) => known(op, p) !== undefined) && !op.path.startsWith('/files/')) {
          const found = await call(op, lower, query);
          // The walked contract is not signed: its document is a 409 (found, not yet made).
          const expected = op.path === '/v1/contracts/{id}/pdf' ? 409 : 200;
          assert.equal(found.statusCode, expected, `${op.method} ${op.path} with the existing ids: ${found.body}`);
        }
        for (const param of params) {
          const id = known(op, param);
          if (id !== undefined) upperCased++;
          const other = (p: string) => (p === param ? randomUUID() : lower(p));
          const upper = (p: string) => (p === param ? (id ?? randomUUID()).toUpperCase() : lower(p));
          const unknown = await call(op, other, query);
          const answer = await call(op, upper, query);
          const what = `${op.method} ${op.path} with ${param} upper-cased (${id === undefined ? 'a random id' : 'an existing id'}): ${answer.statusCode} ${answer.body}; an unknown id: ${unknown.statusCode} ${unknown.body}`;
          assert.equal(answer.statusCode, unknown.statusCode, what);
          assert.deepEqual(answer.json(), unknown.json(), what);
          assert.ok(answer.statusCode >= 400 && answer.statusCode < 500, what);
          // A read finds nothing; a forged signed URL is refused (403) whatever its id.
          if (op.method === 'GET') assert.equal(answer.statusCode, op.path.startsWith('/files/') ? 403 : 404, what);
        }
      }
      t.diagnostic(`${operations.length} operations, ${upperCased} existing ids upper-cased`);
      assert.ok(upperCased >= 40, `existing ids upper-cased: ${upperCased}`);
      // Nothing the walk did changed the objects it names.
      for (const url of [`/v1/notes/${w.ids.notes}`, `/v1/tasks/${w.ids.tasks}`, `/v1/clients/${w.client.id}`]) {
        assert.equal((await w.call('workspace key', { method: 'GET', url })).statusCode, 200, `${url} is still there`);
      }
      assert.equal((await w.call('app key', { method: 'GET', url: '/v1/me' })).statusCode, 200, 'the app key is not revoked');
    });

    // Rule (issue 42, point 12): what docs/api.md says of ids in paths holds on every route: a string that is not an id
    // is a 404 like an unknown id, except one no id can be, which is a 400 naming it: a NUL character (`params.<name>`,
    // as everywhere), over 100 characters (`params`, the router's bound) or an escape that is not UTF-8 (`url`).
    test('on every /v1 and /admin operation, an id with a NUL, over 100 characters or not UTF-8 is a 400; 100 characters a 404', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await principalWorld(h);
      const call = caller(w, h);
      const operations = operationsOf(await openapiDocument(h))
        .filter((op) => (op.path.startsWith('/v1/') || op.path.startsWith('/admin/')) && !op.open)
        .filter((op) => (op.path.match(/\{[^}]+\}/g) ?? []).some((p) => !NOT_IDS.has(p)));
      assert.ok(operations.length >= 60, `the walk covers the routes with ids (${operations.length})`);
      // The sentence says so: docs/api.md's bullet on ids in paths names each exception.
      const bullet =
        readFileSync('docs/api.md', 'utf8')
          .split('\n- ')
          .find((item) => item.startsWith('**Ids in paths**')) ?? '';
      for (const exception of ['NUL character', 'over 100 characters', 'not UTF-8'])
        assert.ok(bullet.replace(/\s+/g, ' ').includes(exception), `docs/api.md, ids in paths: ${exception}`);
      const problem = (path: string, message: string) => ({
        code: 'bad_request',
        message: `${path}: ${message}`,
        data: [{ path, message }],
      });
      for (const op of operations) {
        for (const param of (op.path.match(/\{[^}]+\}/g) ?? []).filter((p) => !NOT_IDS.has(p))) {
          const name = param.slice(1, -1);
          const only = (value: string) => (p: string) => (p === param ? value : randomUUID());
          for (const [value, expected] of [
            ['a%00b', problem(`params.${name}`, 'must not contain the NUL character (U+0000)')],
            ['a'.repeat(101), problem('params', 'is longer than 100 characters')],
            ['%ED%A0%80', problem('url', 'is not a valid percent-encoded path')],
          ] as const) {
            const res = await call(op, only(value));
            const what = `${op.method} ${op.path} with ${param} = ${value.slice(0, 12)}: ${res.body}`;
            assert.deepEqual([res.statusCode, res.json()], [400, expected], what);
          }
          if (op.method === 'GET') {
            const long = await call(op, only('a'.repeat(100)));
            assert.equal(long.statusCode, 404, `${op.method} ${op.path} with ${param} of 100 characters: ${long.body}`);
          }
        }
      }
    });

    test('GET /v1/notes/<UPPER-CASE id> is a 404, as on clients and companies; the lower-case id is the note', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await principalWorld(h);
      for (const [resource, id] of <[keyof typeof NAMES, string][]>[
        ['notes', w.ids.notes],
        ['clients', w.client.id],
        ['companies', w.company.id],
      ]) {
        const name = NAMES[resource];
        const upper = await w.call('workspace key', { method: 'GET', url: `/v1/${resource}/${id.toUpperCase()}` });
        assert.deepEqual([upper.statusCode, upper.json()], [404, { code: 'not_found', message: `${name} not found.`, data: null }]);
        assert.equal((await w.call('workspace key', { method: 'GET', url: `/v1/${resource}/${id}` })).statusCode, 200);
      }
    });
  });
}
