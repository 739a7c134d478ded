import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditEntries, defineCustomField } from '../../../../test/helpers/factories.js';
import { BACKENDS, workspaceHarness } from '../../../../test/helpers/harness.js';
import { present } from '../../../../test/helpers/present.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = '2026-01-15T12:00:00.000Z';

const setup = workspaceHarness;

const ada = { email: 'Ada@Example.com', givenName: 'Ada', familyName: 'Lovelace' };

async function company(call: (m: string, u: string, p?: unknown) => Promise<any>, name: string) {
  const res = await call('POST', '/v1/companies', { name });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

for (const backend of BACKENDS) {
  describe(`clients [${backend}]`, () => {
    test('create without companyId: notInvited, in a new placeholder company, with clientCreated and companyCreated entries', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      const res = await call('POST', '/v1/clients', ada);
      assert.equal(res.statusCode, 200);
      const client = res.json();
      assert.match(client.id, UUID);
      assert.match(client.companyId, UUID);
      assert.match(client.fallbackColor, /^#[0-9a-f]{6}$/);
      assert.deepEqual(client, {
        id: client.id,
        object: 'client',
        createdAt: NOW,
        updatedAt: NOW,
        givenName: 'Ada',
        familyName: 'Lovelace',
        email: 'Ada@Example.com',
        companyId: client.companyId,
        companyIds: [client.companyId],
        customFields: {},
        fallbackColor: client.fallbackColor,
        status: 'notInvited',
        creationMethod: 'internalUser',
        firstLoginDate: null,
        lastLoginDate: null,
      });
      const placeholder = (await call('GET', `/v1/companies/${client.companyId}`)).json();
      assert.equal(placeholder.isPlaceholder, true);
      assert.equal(placeholder.name, 'Ada Lovelace');
      const audit = await auditEntries(h, ws.workspaceId);
      const events = audit.map((e) => e.event_type).filter((e) => e !== 'apiKeyCreated');
      assert.deepEqual(events.sort(), ['clientCreated', 'companyCreated']);
      const created = present(
        audit.find((e) => e.event_type === 'clientCreated'),
        'clientCreated entry',
      );
      assert.equal(created.source, 'platform');
      assert.equal(created.api_key_ref, ws.apiKeyId);
      assert.equal(created.ip, '127.0.0.1');
      assert.equal(created.user_agent, 'lightMyRequest');
      assert.equal(created.created_at, NOW);
      assert.deepEqual(created.context, { clientId: client.id, companyId: client.companyId });
    });

    test('sendInvite=true: status invited and inviteUrl in that response only, with clientInvited', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      const res = await call('POST', '/v1/clients?sendInvite=true', ada);
      assert.equal(res.statusCode, 200);
      const client = res.json();
      assert.equal(client.status, 'invited');
      assert.equal(
        client.inviteUrl.replace(/#[A-Za-z0-9_-]{43}$/, '#…'),
        `http://127.0.0.1:8080/portal/${ws.workspaceId}/invite#…`,
        'the token in the fragment',
      );
      const again = (await call('GET', `/v1/clients/${client.id}`)).json();
      assert.equal(again.status, 'invited');
      assert.equal('inviteUrl' in again, false);
      assert.ok((await auditEntries(h, ws.workspaceId)).some((e) => e.event_type === 'clientInvited' && e.context.clientId === client.id));
      const notSent = (await call('POST', '/v1/clients?sendInvite=false', { ...ada, email: 'b@example.com' })).json();
      assert.equal(notSent.status, 'notInvited');
    });

    test('create in a named company; unknown or foreign company is 400 naming body.companyId', async (t) => {
      const { h, call } = await setup(t, backend);
      const acme = await company(call, 'Acme');
      const res = await call('POST', '/v1/clients', { ...ada, companyId: acme.id });
      assert.equal(res.statusCode, 200);
      assert.deepEqual([res.json().companyId, res.json().companyIds], [acme.id, [acme.id]]);
      const other = await h.workspace('Other');
      const foreign = (await h.as(other.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Theirs' } })).json();
      for (const companyId of [foreign.id, '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b']) {
        const bad = await call('POST', '/v1/clients', { ...ada, email: 'x@example.com', companyId });
        assert.equal(bad.statusCode, 400);
        assert.deepEqual(bad.json(), {
          code: 'bad_request',
          message: 'body.companyId: is not a company of this workspace',
          data: [{ path: 'body.companyId', message: 'is not a company of this workspace' }],
        });
      }
    });

    test('email is unique per workspace, case-insensitively (409), but not across workspaces', async (t) => {
      const { h, call } = await setup(t, backend);
      assert.equal((await call('POST', '/v1/clients', ada)).statusCode, 200);
      const dup = await call('POST', '/v1/clients', { ...ada, email: 'ada@EXAMPLE.com' });
      assert.equal(dup.statusCode, 409);
      assert.deepEqual(dup.json(), {
        code: 'conflict',
        message: 'A client with email "ada@EXAMPLE.com" already exists in this workspace.',
        data: null,
      });
      const other = await h.workspace('Other');
      assert.equal((await h.as(other.apiKey, { method: 'POST', url: '/v1/clients', payload: ada })).statusCode, 200);
      const companies = (await call('GET', '/v1/companies')).json().data;
      assert.equal(companies.length, 1, 'the failed create left no placeholder company behind');
    });

    test('bad input: invalid email, missing names, read-only fields, unknown fields', async (t) => {
      const { call } = await setup(t, backend);
      const cases: [unknown, unknown][] = [
        [{ ...ada, email: 'not-an-email' }, [{ path: 'body.email', message: 'must match format "email"' }]],
        [
          { email: 'a@b.co' },
          [
            { path: 'body.givenName', message: 'is required' },
            { path: 'body.familyName', message: 'is required' },
          ],
        ],
        [{ ...ada, givenName: '   ' }, [{ path: 'body.givenName', message: 'must match pattern "\\S"' }]],
        [
          { ...ada, status: 'active', creationMethod: 'import' },
          [
            { path: 'body.creationMethod', message: 'is read-only' },
            { path: 'body.status', message: 'is read-only' },
          ],
        ],
        [{ ...ada, nickname: 'A' }, [{ path: 'body.nickname', message: 'is not a known field' }]],
      ];
      for (const [payload, data] of cases) {
        const res = await call('POST', '/v1/clients', payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().code, 'bad_request');
        assert.deepEqual(res.json().data, data, JSON.stringify(payload));
      }
      assert.equal((await call('GET', '/v1/clients')).json().data.length, 0, 'nothing written');
    });

    test('list: exact-match filters, empty filter means none, paging with nextToken', async (t) => {
      const { h, call } = await setup(t, backend);
      const acme = await company(call, 'Acme');
      const made = [];
      for (let i = 0; i < 5; i++) {
        h.clock.advance(1000);
        made.push(
          (
            await call('POST', '/v1/clients', {
              email: `c${i}@example.com`,
              givenName: i % 2 ? 'Odd' : 'Even',
              familyName: `F${i}`,
              ...(i < 2 ? { companyId: acme.id } : {}),
            })
          ).json(),
        );
      }
      const ids = (url: string) => call('GET', url).then((r) => r.json().data.map((c: { id: string }) => c.id));
      assert.deepEqual(await ids('/v1/clients'), made.map((c) => c.id).reverse(), 'newest first');
      assert.deepEqual(await ids('/v1/clients?email=C3@EXAMPLE.COM'), [made[3].id]);
      assert.deepEqual(await ids('/v1/clients?givenName=Odd'), [made[3].id, made[1].id]);
      assert.deepEqual(await ids('/v1/clients?familyName=F0'), [made[0].id]);
      assert.deepEqual(await ids(`/v1/clients?companyId=${acme.id}`), [made[1].id, made[0].id]);
      assert.deepEqual(await ids('/v1/clients?companyId=&email='), made.map((c) => c.id).reverse());
      const first = (await call('GET', '/v1/clients?limit=2&givenName=Even')).json();
      assert.deepEqual(
        first.data.map((c: { id: string }) => c.id),
        [made[4].id, made[2].id],
      );
      const second = (await call('GET', `/v1/clients?limit=2&givenName=Even&nextToken=${encodeURIComponent(first.nextToken)}`)).json();
      assert.deepEqual(second, { data: [made[0]] });
      const wrongFilter = await call('GET', `/v1/clients?limit=2&givenName=Odd&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.equal(wrongFilter.statusCode, 400);
      assert.deepEqual((await call('GET', '/v1/clients?limit=1001')).json().data, [{ path: 'query.limit', message: 'must be <= 1000' }]);
      assert.deepEqual((await call('GET', '/v1/clients?limit=0')).json().data, [{ path: 'query.limit', message: 'must be >= 1' }]);
    });

    test('PATCH merges fields and custom fields key by key; "", [] and null clear one; audit keeps previous attributes', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      await defineCustomField(h, ws.workspaceId, { entity: 'client', key: 'tier', type: 'text' });
      const tags = await defineCustomField(h, ws.workspaceId, {
        entity: 'client',
        key: 'tags',
        type: 'multiSelect',
        options: ['VIP', 'Late payer'],
      });
      await defineCustomField(h, ws.workspaceId, { entity: 'client', key: 'seats', type: 'number' });
      const created = (await call('POST', '/v1/clients', { ...ada, customFields: { tier: 'gold', tags: ['vip'], seats: 3 } })).json();
      assert.deepEqual(created.customFields, { tier: 'gold', tags: [tags.options[0].id], seats: '3' });
      h.clock.advance(60_000);
      const res = await call('PATCH', `/v1/clients/${created.id}`, { givenName: 'Augusta', customFields: { tier: '', seats: '4' } });
      assert.equal(res.statusCode, 200);
      const patched = res.json();
      assert.equal(patched.givenName, 'Augusta');
      assert.equal(patched.familyName, 'Lovelace');
      assert.equal(patched.updatedAt, '2026-01-15T12:01:00.000Z');
      assert.deepEqual(patched.customFields, { tags: [tags.options[0].id], seats: '4' });
      h.clock.advance(60_000);
      const cleared = (await call('PATCH', `/v1/clients/${created.id}`, { customFields: { tags: [], seats: null } })).json();
      assert.deepEqual(cleared.customFields, {});
      const audit = (await auditEntries(h, ws.workspaceId)).filter(
        (e) => e.event_type.startsWith('clientUpdated') || e.event_type === 'clientCustomFieldsUpdated',
      );
      assert.deepEqual(
        audit.map((e) => [e.event_type, e.previous_attributes]),
        [
          ['clientCustomFieldsUpdated', { customFields: { tier: 'gold', tags: [tags.options[0].id], seats: '3' } }],
          ['clientUpdated', { givenName: 'Ada' }],
          ['clientCustomFieldsUpdated', { customFields: { tags: [tags.options[0].id], seats: '4' } }],
        ],
      );
      const bad = await call('PATCH', `/v1/clients/${created.id}`, { customFields: { nope: 'x', seats: 'many', tags: ['unknown'] } });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(
        bad
          .json()
          .data.map((d: { path: string }) => d.path)
          .sort(),
        ['body.customFields.nope', 'body.customFields.seats', 'body.customFields.tags'],
      );
    });

    test('PATCH refuses email and read-only fields; companyId moves the client', async (t) => {
      const { call } = await setup(t, backend);
      const acme = await company(call, 'Acme');
      const client = (await call('POST', '/v1/clients', ada)).json();
      const email = await call('PATCH', `/v1/clients/${client.id}`, { email: 'new@example.com' });
      assert.equal(email.statusCode, 400);
      assert.deepEqual(email.json(), {
        code: 'bad_request',
        message: 'body.email cannot be changed',
        data: [{ path: 'body.email', message: 'cannot be changed' }],
      });
      const status = await call('PATCH', `/v1/clients/${client.id}`, { status: 'active' });
      assert.deepEqual(status.json().data, [{ path: 'body.status', message: 'is read-only' }]);
      const moved = (await call('PATCH', `/v1/clients/${client.id}`, { companyId: acme.id })).json();
      assert.deepEqual([moved.companyId, moved.companyIds], [acme.id, [acme.id]]);
      assert.deepEqual((await call('GET', `/v1/clients?companyId=${client.companyId}`)).json().data, [], 'no longer in the placeholder');
      const unknown = await call('PATCH', `/v1/clients/${client.id}`, { companyId: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' });
      assert.equal(unknown.statusCode, 400);
    });

    test('PUT replaces every writable field; without companyId the client gets a placeholder company', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      await defineCustomField(h, ws.workspaceId, { entity: 'client', key: 'tier', type: 'text' });
      const acme = await company(call, 'Acme');
      const client = (await call('POST', '/v1/clients', { ...ada, companyId: acme.id, customFields: { tier: 'gold' } })).json();
      const missing = await call('PUT', `/v1/clients/${client.id}`, { givenName: 'Only' });
      assert.deepEqual(missing.json().data, [{ path: 'body.familyName', message: 'is required' }]);
      const put = (await call('PUT', `/v1/clients/${client.id}`, { givenName: 'Ada', familyName: 'King' })).json();
      assert.equal(put.familyName, 'King');
      assert.deepEqual(put.customFields, {});
      assert.notEqual(put.companyId, acme.id);
      const placeholder = (await call('GET', `/v1/companies/${put.companyId}`)).json();
      assert.deepEqual([placeholder.isPlaceholder, placeholder.name], [true, 'Ada King']);
      const again = (await call('PUT', `/v1/clients/${client.id}`, { givenName: 'Ada', familyName: 'King' })).json();
      assert.equal(again.companyId, put.companyId, 'its own placeholder is kept');
      const back = (
        await call('PUT', `/v1/clients/${client.id}`, {
          givenName: 'Ada',
          familyName: 'King',
          companyId: acme.id,
          customFields: { tier: 'silver' },
        })
      ).json();
      assert.deepEqual([back.companyId, back.customFields], [acme.id, { tier: 'silver' }]);
    });

    test('DELETE is permanent and answers {id, object, deleted}', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      const client = (await call('POST', '/v1/clients', ada)).json();
      const res = await call('DELETE', `/v1/clients/${client.id}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { id: client.id, object: 'client', deleted: true });
      assert.equal((await call('GET', `/v1/clients/${client.id}`)).statusCode, 404);
      assert.equal((await call('DELETE', `/v1/clients/${client.id}`)).statusCode, 404);
      assert.equal((await call('POST', '/v1/clients', ada)).statusCode, 200, 'the email is free again');
      assert.ok((await auditEntries(h, ws.workspaceId)).some((e) => e.event_type === 'clientDeleted' && e.context.clientId === client.id));
    });

    test("another workspace's client is invisible (404) on every route", async (t) => {
      const { h, call } = await setup(t, backend);
      const client = (await call('POST', '/v1/clients', ada)).json();
      const other = await h.workspace('Other');
      const as = (method: string, url: string, payload?: unknown) =>
        h.as(other.apiKey, { method: method as any, url, ...(payload ? { payload: payload as any } : {}) });
      const notFound = { code: 'not_found', message: 'Client not found.', data: null };
      for (const [method, payload] of [
        ['GET'],
        ['PATCH', { givenName: 'X' }],
        ['PUT', { givenName: 'X', familyName: 'Y' }],
        ['DELETE'],
      ] as const) {
        const res = await as(method, `/v1/clients/${client.id}`, payload);
        assert.equal(res.statusCode, 404, method);
        assert.deepEqual(res.json(), notFound, method);
      }
      assert.deepEqual((await as('GET', '/v1/clients')).json(), { data: [] });
      assert.deepEqual((await as('GET', `/v1/clients?email=${encodeURIComponent(ada.email)}`)).json(), { data: [] });
      assert.equal((await call('GET', `/v1/clients/${client.id}`)).json().givenName, 'Ada', 'unchanged');
    });
  });
}
