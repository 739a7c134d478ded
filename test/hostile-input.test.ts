import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createTestInternalUser, defineCustomField, populatedWorkspace, sessionKeyFor } from './helpers/factories.js';
import { BACKENDS, adminHarness, freshDatabaseUrl, workspaceHarness } from './helpers/harness.js';

/** A 400 in the contract's shape naming exactly these field paths, with X-Request-Id. */
function assertBadRequest(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, paths: string[], what: string) {
  assert.equal(res.statusCode, 400, what);
  const body = res.json() as { code: string; message: string; data: { path: string }[] };
  assert.equal(body.code, 'bad_request', what);
  assert.equal(typeof body.message, 'string', what);
  assert.deepEqual(
    body.data.map((p) => p.path),
    paths,
    what,
  );
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, `${what}: X-Request-Id`);
}

for (const backend of BACKENDS) {
  describe(`hostile input gets a clear 4xx, the same on both backends [${backend}]`, () => {
    test('the NUL character is a 400 naming the field, in a body, a filter, a path id or a custom field key', async (t) => {
      const { call, h, ws } = await workspaceHarness(t, backend);
      assertBadRequest(await call('GET', '/v1/clients?email=%00'), ['query.email'], 'a filter');
      assertBadRequest(await call('GET', '/v1/companies/%00'), ['params.id'], 'a path id');
      assertBadRequest(await call('POST', '/v1/companies', { name: 'a\u0000b' }), ['body.name'], 'a body string');
      assertBadRequest(
        await call('POST', '/v1/companies', { name: 'Acme', customFields: { 'k\u0000': 'v' } }),
        ['body.customFields'],
        'a key',
      );
      const nothingWritten = await h.as(ws.apiKey, { method: 'GET', url: '/v1/companies' });
      assert.deepEqual(nothingWritten.json().data, [], 'no partial write');
      const escaped = await call('POST', '/v1/companies', { name: 'back\\u0000slash' });
      assert.equal(escaped.statusCode, 200, 'a literal backslash-u-0000 text is no NUL');
      assert.equal(escaped.json().name, 'back\\u0000slash');
    });

    // Rule (issue 42, point 12): a lone surrogate (U+D800–U+DFFF without its pair) is refused wherever text comes in, as
    // the NUL is, a 400 naming the field, whether or not a free-text schema guards it: any JSON body field or key (names,
    // custom field values and keys, sign-in forms), a query value sent as the percent escapes of one (or of any bytes that
    // are not UTF-8), a body whose bytes are not UTF-8. It was stored silently changed (three U+FFFD each on SQLite, one on
    // PostgreSQL).
    test('a lone surrogate is a 400 naming the field in any body field or key, a filter, a custom field value; bytes not UTF-8 too', async (t) => {
      const { call, h, ws } = await workspaceHarness(t, backend);
      const lone = 'must not contain a lone surrogate (U+D800–U+DFFF without its pair)';
      const notUtf8 = 'is not valid percent-encoded UTF-8';
      const expect = async (res: Parameters<typeof assertBadRequest>[0], path: string, message: string, what: string) => {
        assertBadRequest(res, [path], what);
        assert.deepEqual((res.json() as { data: unknown }).data, [{ path, message }], what);
      };
      await defineCustomField(h, ws.workspaceId, { entity: 'company', key: 'notes', type: 'text' });
      await defineCustomField(h, ws.workspaceId, { entity: 'company', key: 'site', type: 'address' });
      await expect(await call('POST', '/v1/companies', { name: 'a\ud800b' }), 'body.name', lone, 'a name (no free-text schema)');
      await expect(await call('POST', '/v1/companies', { name: '\udc00' }), 'body.name', lone, 'a low surrogate alone');
      await expect(
        await call('POST', '/v1/companies', { name: 'Acme', customFields: { notes: 'x\udfff' } }),
        'body.customFields.notes',
        lone,
        'a custom field value',
      );
      await expect(
        await call('POST', '/v1/companies', { name: 'Acme', customFields: { site: { city: 'Par\ud800is' } } }),
        'body.customFields.site.city',
        lone,
        'an address part',
      );
      await expect(
        await call('POST', '/v1/companies', { name: 'Acme', customFields: { 'k\ud800': 'v' } }),
        'body.customFields',
        lone,
        'a key',
      );
      await expect(
        await h.app.inject({
          method: 'POST',
          url: `/portal/${ws.workspaceId}/api/sign-in/password`,
          payload: { email: 'ada\ud800@example.com', password: 'x' },
          headers: { 'x-portal-request': '1' },
        }),
        'body.email',
        lone,
        'a sign-in form, outside /v1',
      );
      // In a query, a lone surrogate is the percent escapes of its three WTF-8 bytes; any bytes that are not UTF-8 are refused.
      for (const query of ['email=%ED%A0%80', 'givenName=a%FFb', 'familyName=%C3', 'companyId=%ED%B0%80', 'given+Name=100%']) {
        const name = query.split('=')[0].replace('+', ' ');
        await expect(await call('GET', `/v1/clients?limit=5&${query}`), `query.${name}`, notUtf8, query);
      }
      await expect(await call('GET', '/v1/clients?limit=5&%ED%A0%80=x'), 'query', notUtf8, 'a name that is not UTF-8');
      const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('b"}')]);
      const bytes = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: body,
        headers: { 'content-type': 'application/json' },
      });
      await expect(bytes, 'body', 'is not valid UTF-8', 'a body whose bytes are not UTF-8');
      const nothingWritten = await h.as(ws.apiKey, { method: 'GET', url: '/v1/companies' });
      assert.deepEqual(nothingWritten.json().data, [], 'nothing written');
      // Pairs are characters: escaped or as UTF-8, in a body or a query.
      const pair = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: '{"name":"\\ud83c\\udf89 Party","customFields":{"notes":"🎉"}}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(pair.statusCode, 200, pair.body);
      assert.deepEqual([pair.json().name, pair.json().customFields], ['🎉 Party', { notes: '🎉' }]);
      const found = await call('GET', `/v1/companies?name=${encodeURIComponent('🎉 Party')}`);
      assert.deepEqual([found.statusCode, found.json().data.map((c: { id: string }) => c.id)], [200, [pair.json().id]]);
    });

    test('customFields with more keys than the limit is a 400 naming it, never a 500 (no query sized by the input)', async (t) => {
      const { call } = await workspaceHarness(t, backend);
      const many = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, 'v']));
      const res = await call('POST', '/v1/companies', { name: 'Acme', customFields: many });
      assertBadRequest(res, ['body.customFields'], '40,000 keys');
      assert.equal(res.json().data[0].message, 'must NOT have more than 100 properties');
      const atLimit = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'v']));
      const unknownKeys = await call('POST', '/v1/companies', { name: 'Acme', customFields: atLimit });
      assert.equal(unknownKeys.statusCode, 400, '100 keys pass the bound and reach the definitions check');
      assert.equal(unknownKeys.json().data.length, 100, 'each unknown key named');
    });

    test("router errors answer the contract's body with X-Request-Id", async (t) => {
      const { call } = await workspaceHarness(t, backend);
      assertBadRequest(await call('GET', `/v1/clients/${'a'.repeat(101)}`), ['params'], 'a path parameter over 100 characters');
      assertBadRequest(await call('GET', '/v1/clients/%ED%A0%80'), ['url'], 'an invalid percent escape');
      assert.equal((await call('GET', `/v1/clients/${'a'.repeat(100)}`)).statusCode, 404, '100 characters is an id like any other');
    });

    test('more than 100 query parameters is a 400, never a filter silently dropped', async (t) => {
      const { call } = await workspaceHarness(t, backend);
      const junk = Array.from({ length: 1000 }, (_, i) => `limit=${(i % 9) + 1}`).join('&');
      const res = await call('GET', `/v1/clients?${junk}&email=ada@example.com`);
      assertBadRequest(res, ['query'], '1,001 parameters');
      assert.equal(res.json().message, 'More than 100 query parameters.');
      const hundred = Array.from({ length: 100 }, (_, i) => `x${i}=1`).join('&');
      const counted = await call('GET', `/v1/clients?${hundred}`);
      assert.equal(counted.json().data.length, 100, '100 parameters are parsed, each unknown one named');
    });

    test('a body in a charset other than UTF-8 is a 415; a DELETE with a JSON content type and no body is fine', async (t) => {
      const { h, ws, call } = await workspaceHarness(t, backend);
      const latin1 = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: Buffer.from('{"name":"Caf\xe9"}', 'latin1'),
        headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      });
      assert.equal(latin1.statusCode, 415);
      assert.deepEqual(latin1.json(), {
        code: 'unsupported_media_type',
        message: 'Request body must be UTF-8 JSON (got charset=iso-8859-1).',
        data: null,
      });
      const utf8 = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/companies',
        payload: '{"name":"Café"}',
        headers: { 'content-type': 'application/json; charset=UTF-8' },
      });
      assert.equal(utf8.statusCode, 200, 'charset=UTF-8 is fine');
      const company = (await call('POST', '/v1/companies', { name: 'Gone' })).json();
      const deleted = await h.as(ws.apiKey, {
        method: 'DELETE',
        url: `/v1/companies/${company.id}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(deleted.json(), { id: company.id, object: 'company', deleted: true });
    });

    test('a page token is bound to its exact filters and to who reads the list', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, company } = await populatedWorkspace(h);
      for (const email of ['p1@acme.test', 'p2@acme.test']) {
        const res = await h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/clients',
          payload: { email, givenName: 'P', familyName: 'Q', companyId: company.id },
        });
        assert.equal(res.statusCode, 200);
      }
      const first = await h.as(ws.apiKey, { method: 'GET', url: '/v1/clients?givenName=P&familyName=Q&limit=1' });
      const token = encodeURIComponent(first.json().nextToken);
      const next = await h.as(ws.apiKey, { method: 'GET', url: `/v1/clients?givenName=P&familyName=Q&limit=1&nextToken=${token}` });
      assert.equal(next.statusCode, 200, 'the same list takes it');
      const lookalike = await h.as(ws.apiKey, {
        method: 'GET',
        url: `/v1/clients?familyName=Q%26givenName%3DP&limit=1&nextToken=${token}`,
      });
      assertBadRequest(lookalike, ['query.nextToken'], 'a filter value that spells another filter');
      const limited = await createTestInternalUser(h, ws.workspaceId, {
        email: 'l@acme.test',
        givenName: 'L',
        familyName: 'U',
        companyAccessList: [company.id],
      });
      const session = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: limited.id });
      const other = await h.as(session, { method: 'GET', url: `/v1/clients?givenName=P&familyName=Q&limit=1&nextToken=${token}` });
      assertBadRequest(other, ['query.nextToken'], 'a principal limited to some companies');
    });

    test('an internal user limited to some companies cannot create a company it could never see (403)', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, company } = await populatedWorkspace(h);
      const limited = await createTestInternalUser(h, ws.workspaceId, {
        email: 'lim@acme.test',
        givenName: 'Lim',
        familyName: 'Ited',
        companyAccessList: [company.id],
      });
      const key = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: limited.id });
      const res = await h.as(key, { method: 'POST', url: '/v1/companies', payload: { name: 'Hidden' } });
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), {
        code: 'forbidden',
        message: 'An internal user limited to some companies cannot create companies.',
        data: null,
      });
      const names = (await h.as(ws.apiKey, { method: 'GET', url: '/v1/companies' })).json().data.map((c: { name: string }) => c.name);
      assert.deepEqual(names, ['Acme Co'], 'nothing written');
    });
  });
}

describe('TRUST_PROXY', () => {
  test('takes false or the proxies’ addresses; refuses true and hop counts', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback' }).trustProxy, '10.0.0.0/8,127.0.0.1,loopback');
    assert.equal(loadConfig({ TRUST_PROXY: '::1,fd00::/8' }).trustProxy, '::1,fd00::/8');
    for (const value of ['true', '1', '2', 'yes', '10.0.0.0/8,evil']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: value }), ConfigError, value);
    }
  });

  test('an invalid address or CIDR is a configuration error naming TRUST_PROXY, not a stack trace at start', async (t) => {
    for (const value of ['10.0.0.0/33', '10.0.0.0/0', '999.1.1.1', '10.0.0', 'fd00::/129', '::1/0', '10.0.0.0/8/8', 'fe80::1%eth0']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (error: Error) =>
          error instanceof ConfigError && error.message.includes(`TRUST_PROXY must be false or the proxies' addresses/CIDRs`),
        value,
      );
    }
    // What it takes, Fastify takes too.
    const url = await freshDatabaseUrl(t, 'sqlite');
    const trusted = '10.0.0.0/8,192.168.1.7,fd00::/8,::1,::ffff:10.0.0.1,172.16.0.0/12,loopback';
    const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', TRUST_PROXY: trusted }));
    await app.close();
    // `portal serve` says what is wrong and exits 1.
    const started = spawnSync(process.execPath, ['bin/portal.js', 'serve'], {
      env: { ...process.env, DATABASE_URL: url, TRUST_PROXY: '10.0.0.0/33', PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(started.status, 1, started.stderr);
    assert.match(
      started.stderr,
      /^portal: Invalid configuration:\n {2}- TRUST_PROXY must be false or the proxies' addresses\/CIDRs, comma-separated, e\.g\. 10\.0\.0\.0\/8 \(got "10\.0\.0\.0\/33"\)/,
    );
    assert.doesNotMatch(started.stderr, /\n\s+at /, 'no stack trace');
  });

  test('a forged leftmost X-Forwarded-For neither changes the client ip nor escapes the failed-authentication limit', async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite');
    const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', TRUST_PROXY: '10.0.0.0/8' }));
    t.after(() => app.close());
    // The balancer (10.0.0.2) appends the address it saw (203.0.113.9) to whatever the caller wrote.
    const from = (forged: string) =>
      app.inject({
        method: 'GET',
        url: '/v1/me',
        headers: { 'x-api-key': 'ppk_wrong', 'x-forwarded-for': `${forged}, 203.0.113.9` },
        remoteAddress: '10.0.0.2',
      });
    for (let i = 0; i < 30; i++) assert.equal((await from(`198.51.100.${i}`)).statusCode, 401, `failure ${i + 1}`);
    assert.equal((await from('198.51.100.200')).statusCode, 429, 'the 31st failure of 203.0.113.9, whatever it forged');
    const other = await app.inject({
      method: 'GET',
      url: '/v1/me',
      headers: { 'x-api-key': 'ppk_wrong', 'x-forwarded-for': '203.0.113.10' },
      remoteAddress: '10.0.0.2',
    });
    assert.equal(other.statusCode, 401, 'another client behind the same balancer has its own tries');
  });
});

describe('requests that take too long', () => {
  test('a body that stalls is cut off (408) after REQUEST_TIMEOUT_MS, the connection closed', async (t) => {
    const { h, ws } = await workspaceHarness(t, 'sqlite', { env: { REQUEST_TIMEOUT_MS: '1000' } });
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(10_000, () => reject(new Error('no answer in 10 s')));
      socket.write(
        `POST /v1/companies HTTP/1.1\r\nHost: x\r\nx-api-key: ${ws.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"na`,
      );
    });
    const elapsed = Date.now() - started;
    assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\nx-request-id: [0-9a-f-]{36}\r\n/, answer);
    assert.ok(answer.endsWith('\r\n\r\n{"code":"request_timeout","message":"The request did not arrive in time.","data":null}'), answer);
    assert.ok(elapsed >= 900 && elapsed < 4000, `cut off after ${elapsed} ms`);
  });
});

describe('logs', () => {
  test('query values other than limit are logged as [redacted] (filters are personal data)', async (t) => {
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const { call } = await workspaceHarness(t, 'sqlite', { logLevel: 'info', logStream });
    await call('GET', '/v1/clients?email=ada%40example.com&givenName=Ada&limit=5');
    const incoming = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'incoming request');
    assert.equal(incoming?.req.url, '/v1/clients?email=[redacted]&givenName=[redacted]&limit=5');
    assert.ok(!lines.join('').includes('ada%40example.com') && !lines.join('').includes('Ada'), 'the values appear nowhere');
  });
});
