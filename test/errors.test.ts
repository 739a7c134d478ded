import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { populatedWorkspace } from './helpers/factories.js';
import { BACKENDS, harness } from './helpers/harness.js';

/** A body route in the authenticated scope, to reach each body error of contract §5. */
function echoRoutes(v1: FastifyInstance) {
  const Body = Type.Object(
    {
      name: Type.String({ minLength: 1 }),
      count: Type.Optional(Type.Integer({ minimum: 0 })),
      email: Type.Optional(Type.String({ format: 'email' })),
    },
    { additionalProperties: false },
  );
  v1.post(
    '/echo',
    {
      schema: {
        body: Body,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ maximum: 10 })) }, { additionalProperties: false }),
      },
    },
    async (request) => ({ body: request.body, query: request.query }),
  );
  v1.get('/boom', async () => {
    throw new Error('secret internal detail at /srv/app.ts:12');
  });
  v1.post('/duplicate', async (request) => {
    const db = v1.ctx.db;
    const row = {
      id: 'dup',
      workspace_id: request.caller.principal.workspaceId,
      kind: 'app' as const,
      app_id: null,
      lookup: 'same-lookup',
      secret_hash: 'x',
      created_at: 'now',
      revoked_at: null,
    };
    await db.insertInto('api_keys').values(row).execute();
    await db
      .insertInto('api_keys')
      .values({ ...row, id: 'dup2' })
      .execute();
    return {};
  });
}

for (const backend of BACKENDS) {
  describe(`errors (contract §5) [${backend}]`, () => {
    async function setup(t: Parameters<typeof harness>[0]) {
      const h = await harness(t, backend, { extraV1Routes: echoRoutes });
      const ws = await h.workspace();
      return { h, key: ws.apiKey };
    }

    test('a valid body passes and comes back', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/echo?limit=3', payload: { name: 'a', count: 2 } });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { body: { name: 'a', count: 2 }, query: { limit: 3 } });
    });

    test('malformed JSON is 400 bad_request', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, {
        method: 'POST',
        url: '/v1/echo',
        payload: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 400);
      const body = res.json();
      assert.equal(body.code, 'bad_request');
      assert.match(body.message, /^Malformed JSON body/);
      assert.deepEqual(body.data, [{ path: 'body', message: 'is not valid JSON' }]);
    });

    test('an empty JSON body is 400 bad_request', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/echo', payload: '', headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'bad_request');
    });

    test('schema failures are 400 with every failing path in data', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/echo', payload: { name: '', count: '5', email: 'not-an-email' } });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        code: 'bad_request',
        message: '3 fields are invalid',
        data: [
          { path: 'body.name', message: 'must NOT have fewer than 1 characters' },
          { path: 'body.count', message: 'must be integer' },
          { path: 'body.email', message: 'must match format "email"' },
        ],
      });
    });

    test('a missing required field is named', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/echo', payload: {} });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        code: 'bad_request',
        message: 'body.name is required',
        data: [{ path: 'body.name', message: 'is required' }],
      });
    });

    test('an unknown body field is 400 naming the field (typos do not pass silently)', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/echo', payload: { name: 'a', nmae: 'typo' } });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        code: 'bad_request',
        message: 'body.nmae is not a known field',
        data: [{ path: 'body.nmae', message: 'is not a known field' }],
      });
    });

    test('query parameters are validated and an empty one means absent', async (t) => {
      const { h, key } = await setup(t);
      const bad = await h.as(key, { method: 'POST', url: '/v1/echo?limit=11', payload: { name: 'a' } });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(bad.json().data, [{ path: 'query.limit', message: 'must be <= 10' }]);
      const unknown = await h.as(key, { method: 'POST', url: '/v1/echo?limt=1', payload: { name: 'a' } });
      assert.deepEqual(unknown.json().data, [{ path: 'query.limt', message: 'is not a known field' }]);
      const empty = await h.as(key, { method: 'POST', url: '/v1/echo?limit=', payload: { name: 'a' } });
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(empty.json().query, {});
    });

    test('a body over 1 MiB is 413 payload_too_large', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/echo', payload: { name: 'x'.repeat(1024 * 1024) } });
      assert.equal(res.statusCode, 413);
      assert.deepEqual(res.json(), { code: 'payload_too_large', message: 'Request body is larger than 1048576 bytes.', data: null });
    });

    test('a body that is not JSON is 415 unsupported_media_type', async (t) => {
      const { h, key } = await setup(t);
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await h.as(key, { method: 'POST', url: '/v1/echo', payload: 'name=a', headers: { 'content-type': contentType } });
        assert.equal(res.statusCode, 415, contentType);
        assert.deepEqual(res.json(), {
          code: 'unsupported_media_type',
          message: 'Request body must be JSON (Content-Type: application/json).',
          data: null,
        });
      }
    });

    test('an unknown route is 404 not_found, with or without credentials', async (t) => {
      const { h, key } = await setup(t);
      for (const res of [
        await h.as(key, { method: 'GET', url: '/v1/nothing-here?x=1' }),
        await h.app.inject({ method: 'DELETE', url: '/nothing' }),
      ]) {
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().code, 'not_found');
        assert.equal(res.json().data, null);
      }
      assert.equal((await h.as(key, { method: 'GET', url: '/v1/nothing-here?x=1' })).json().message, 'No route GET /v1/nothing-here.');
    });

    // Rule (issue 42, point 12): a method no route has (QUERY, PROPFIND…) is a 405 with Allow on a path that exists and a
    // 404 on one that does not, whatever its body or Content-Type: a request no route takes is answered before its body is
    // read (QUERY without a Content-Type was a 400, one with a body not JSON a 415, one with malformed JSON a 400).
    test('an unknown method is a 405 with Allow where the path exists (a 404 where not), before any body is read', async (t) => {
      const { h, key } = await setup(t);
      const notAllowed = (method: string, path: string, allow: string) => ({
        statusCode: 405,
        allow,
        body: { code: 'method_not_allowed', message: `Method ${method} is not allowed on ${path}; it allows ${allow}.`, data: null },
      });
      const cases: [string, Record<string, string>, string | undefined][] = [
        ['QUERY', {}, undefined],
        ['QUERY', { 'content-type': 'application/json' }, '{"email":"ada@example.com"}'],
        ['QUERY', { 'content-type': 'text/plain' }, 'email = ada'],
        ['QUERY', { 'content-type': 'application/json' }, '{not json'],
        ['PROPFIND', { 'content-type': 'application/xml' }, '<propfind/>'],
        ['MKCOL', {}, undefined],
      ];
      for (const [method, headers, payload] of cases) {
        for (const credentials of [{}, { 'x-api-key': key }]) {
          const res = await h.app.inject({
            method: method as 'GET',
            url: '/v1/clients?limit=5',
            headers: { ...headers, ...credentials },
            payload,
          });
          const what = `${method} ${JSON.stringify(headers)} ${payload}`;
          assert.deepEqual(
            { statusCode: res.statusCode, allow: res.headers.allow, body: res.json() },
            notAllowed(method, '/v1/clients', 'GET, HEAD, POST'),
            what,
          );
          assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, what);
        }
      }
      const nowhere = await h.app.inject({ method: 'QUERY' as 'GET', url: '/v1/nothing-here' });
      assert.deepEqual(
        [nowhere.statusCode, nowhere.headers.allow, nowhere.json()],
        [404, undefined, { code: 'not_found', message: 'No route QUERY /v1/nothing-here.', data: null }],
      );
    });

    test('a unique-constraint violation from the driver is 409 conflict', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'POST', url: '/v1/duplicate' });
      assert.equal(res.statusCode, 409);
      assert.deepEqual(res.json(), { code: 'conflict', message: 'An object with these unique values already exists.', data: null });
    });

    test('an unexpected error is 500 internal_error with the request id and no detail or stack', async (t) => {
      const { h, key } = await setup(t);
      const res = await h.as(key, { method: 'GET', url: '/v1/boom', headers: { 'x-request-id': 'req-boom-1' } });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(res.json(), { code: 'internal_error', message: 'Internal server error.', data: { requestId: 'req-boom-1' } });
      assert.doesNotMatch(res.body, /secret|srv|stack|at /);
    });

    // Rule (issue 42, point 12): every 500 carries `data.requestId`, the service's own ones too (a file whose content is
    // missing from the store), so that it can be found in the logs.
    test('a file whose content is missing from the store is a 500 internal_error with the request id', async (t) => {
      const h = await harness(t, backend);
      const { ws, client } = await populatedWorkspace(h);
      const call = (method: 'GET' | 'POST', url: string, payload?: object, headers = {}) =>
        h.as(ws.apiKey, { method, url, payload, headers });
      const channel = (await call('POST', '/v1/channels/files', { membershipType: 'individual', clientId: client.id })).json();
      const file = (await call('POST', '/v1/files/file', { channelId: channel.id, path: 'report.txt' })).json();
      const url = new URL(file.uploadUrl);
      const put = await h.app.inject({
        method: 'PUT',
        url: `${url.pathname}${url.search}`,
        payload: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(put.statusCode, 200, put.body);
      const { store } = h.app.ctx.files;
      for await (const { key } of store.list()) await store.remove(key);
      const res = await call('GET', `/v1/files/${file.id}/download`, undefined, { 'x-request-id': 'req-missing-1' });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(res.json(), {
        code: 'internal_error',
        message: 'The file’s content is missing from the store.',
        data: { requestId: 'req-missing-1' },
      });
      assert.equal(res.headers['x-request-id'], 'req-missing-1');
    });

    test('storage down: /readyz is 503 unavailable with Retry-After', async (t) => {
      const { h } = await setup(t);
      assert.equal((await h.app.inject('/readyz')).statusCode, 200);
      await h.app.ctx.database.close();
      const res = await h.app.inject('/readyz');
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.deepEqual(res.json(), { code: 'unavailable', message: 'Database is unreachable.', data: null });
    });

    test('every response carries X-Request-Id; a well-formed incoming one is kept', async (t) => {
      const { h, key } = await setup(t);
      const responses = [
        await h.as(key, { method: 'GET', url: '/v1/me' }),
        await h.app.inject({ method: 'GET', url: '/v1/me' }),
        await h.app.inject({ method: 'GET', url: '/nope' }),
        await h.as(key, { method: 'POST', url: '/v1/echo', payload: {} }),
        await h.app.inject({ method: 'GET', url: '/healthz' }),
      ];
      for (const res of responses) assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(
        (await h.as(key, { method: 'GET', url: '/v1/me', headers: { 'x-request-id': 'trace-42' } })).headers['x-request-id'],
        'trace-42',
      );
      assert.match(
        String((await h.as(key, { method: 'GET', url: '/v1/me', headers: { 'x-request-id': 'bad id\n' } })).headers['x-request-id']),
        /^[0-9a-f-]{36}$/,
      );
    });
  });
}

// Rule (issue 43, point 2): every error the service throws on purpose is made by `errors` of src/lib/errors.ts, the
// one registry of the codes it answers with; no module builds an ApiError of its own.
test('every ApiError is made by the errors registry', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const sources = readdirSync('src', { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => join('src', file));
  const building = sources.filter(
    (file) => file !== join('src', 'lib', 'errors.ts') && readFileSync(file, 'utf8').includes('new ApiError('),
  );
  assert.deepEqual(building, []);
});
