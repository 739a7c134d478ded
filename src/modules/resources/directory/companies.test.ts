import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditEntries, defineCustomField } from '../../../../test/helpers/factories.js';
import { BACKENDS, workspaceHarness } from '../../../../test/helpers/harness.js';
import { present } from '../../../../test/helpers/present.js';

const NOW = '2026-01-15T12:00:00.000Z';

const setup = workspaceHarness;

for (const backend of BACKENDS) {
  describe(`companies [${backend}]`, () => {
    test('create: name required, fallbackColor derived or given, iconImageUrl kept, companyCreated recorded', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      const res = await call('POST', '/v1/companies', { name: ' Acme ', iconImageUrl: 'https://cdn.example.com/acme.png' });
      assert.equal(res.statusCode, 200);
      const acme = res.json();
      assert.match(acme.fallbackColor, /^#[0-9a-f]{6}$/);
      assert.deepEqual(acme, {
        id: acme.id,
        object: 'company',
        createdAt: NOW,
        updatedAt: NOW,
        name: 'Acme',
        customFields: {},
        fallbackColor: acme.fallbackColor,
        iconImageUrl: 'https://cdn.example.com/acme.png',
        isPlaceholder: false,
      });
      const colored = (await call('POST', '/v1/companies', { name: 'Blue', fallbackColor: '#0A0BfF' })).json();
      assert.equal(colored.fallbackColor, '#0A0BfF');
      assert.equal('iconImageUrl' in colored, false);
      assert.deepEqual((await call('GET', `/v1/companies/${acme.id}`)).json(), acme);
      const entry = present(
        (await auditEntries(h, ws.workspaceId)).find((e) => e.event_type === 'companyCreated' && e.context.companyId === acme.id),
        'companyCreated entry',
      );
      assert.deepEqual([entry.source, entry.context], ['platform', { companyId: acme.id, name: 'Acme' }]);
    });

    test('bad input is 400 naming each field', async (t) => {
      const { call } = await setup(t, backend);
      const cases: [unknown, unknown][] = [
        [{}, [{ path: 'body.name', message: 'is required' }]],
        [{ name: 'A', fallbackColor: 'blue' }, [{ path: 'body.fallbackColor', message: 'must match pattern "^#[0-9a-fA-F]{6}$"' }]],
        [{ name: 'A', fallbackColor: '#12345' }, [{ path: 'body.fallbackColor', message: 'must match pattern "^#[0-9a-fA-F]{6}$"' }]],
        [{ name: 'A', iconImageUrl: 'not a url' }, [{ path: 'body.iconImageUrl', message: 'must match format "uri"' }]],
        [
          { name: 'A', customFields: { unknownKey: 'x' } },
          [{ path: 'body.customFields.unknownKey', message: 'is not a custom field of companies' }],
        ],
        [{ name: 42 }, [{ path: 'body.name', message: 'must be string' }]],
      ];
      for (const [payload, data] of cases) {
        const res = await call('POST', '/v1/companies', payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.deepEqual(res.json().data, data, JSON.stringify(payload));
      }
      assert.deepEqual((await call('GET', '/v1/companies')).json(), { data: [] });
    });

    test('duplicate names are a 409, case-insensitively; placeholders never conflict', async (t) => {
      const { h, call } = await setup(t, backend);
      await call('POST', '/v1/companies', { name: 'Acme' });
      const dup = await call('POST', '/v1/companies', { name: 'ACME' });
      assert.equal(dup.statusCode, 409);
      assert.deepEqual(dup.json(), { code: 'conflict', message: 'A company named "ACME" already exists.', data: null });
      assert.equal((await call('POST', '/v1/companies', { name: 'Acme', isPlaceholder: true })).statusCode, 200);
      const beta = (await call('POST', '/v1/companies', { name: 'Beta' })).json();
      const rename = await call('PATCH', `/v1/companies/${beta.id}`, { name: 'acme' });
      assert.equal(rename.statusCode, 409);
      const other = await h.workspace('Other');
      assert.equal((await h.as(other.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Acme' } })).statusCode, 200);
    });

    test('list filters by name and isPlaceholder, newest first, with paging', async (t) => {
      const { h, call } = await setup(t, backend);
      const a = (await call('POST', '/v1/companies', { name: 'A' })).json();
      h.clock.advance(1000);
      const b = (await call('POST', '/v1/companies', { name: 'B' })).json();
      h.clock.advance(1000);
      const client = (await call('POST', '/v1/clients', { email: 'c@example.com', givenName: 'C', familyName: 'D' })).json();
      const ids = (url: string) => call('GET', url).then((r) => r.json().data.map((c: { id: string }) => c.id));
      assert.deepEqual(await ids('/v1/companies'), [client.companyId, b.id, a.id]);
      assert.deepEqual(await ids('/v1/companies?name=B'), [b.id]);
      assert.deepEqual(await ids('/v1/companies?isPlaceholder=true'), [client.companyId]);
      assert.deepEqual(await ids('/v1/companies?isPlaceholder=false'), [b.id, a.id]);
      assert.deepEqual((await call('GET', '/v1/companies?isPlaceholder=maybe')).json().data, [
        { path: 'query.isPlaceholder', message: 'must be boolean' },
      ]);
      const first = (await call('GET', '/v1/companies?limit=2')).json();
      assert.equal(first.data.length, 2);
      assert.deepEqual(await ids(`/v1/companies?limit=2&nextToken=${encodeURIComponent(first.nextToken)}`), [a.id]);
    });

    test('PATCH renames and merges custom fields, recording companyUpdated and companyCustomFieldsUpdated; isPlaceholder is read-only', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      await defineCustomField(h, ws.workspaceId, { entity: 'company', key: 'region', type: 'text' });
      await defineCustomField(h, ws.workspaceId, { entity: 'company', key: 'hq', type: 'address' });
      const acme = (await call('POST', '/v1/companies', { name: 'Acme', customFields: { region: 'EU' } })).json();
      h.clock.advance(1000);
      const res = await call('PATCH', `/v1/companies/${acme.id}`, {
        name: 'Acme Ltd',
        customFields: { hq: { city: 'Paris', country: 'FR' } },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        [res.json().name, res.json().customFields, res.json().updatedAt],
        ['Acme Ltd', { region: 'EU', hq: { city: 'Paris', country: 'FR' } }, '2026-01-15T12:00:01.000Z'],
      );
      const entries = (await auditEntries(h, ws.workspaceId)).filter(
        (e) => e.event_type === 'companyUpdated' || e.event_type === 'companyCustomFieldsUpdated',
      );
      assert.deepEqual(
        entries.map((e) => [e.event_type, e.previous_attributes]),
        [
          ['companyCustomFieldsUpdated', { customFields: { region: 'EU' } }],
          ['companyUpdated', { name: 'Acme' }],
        ],
      );
      const readOnly = await call('PATCH', `/v1/companies/${acme.id}`, { isPlaceholder: true });
      assert.deepEqual(readOnly.json(), {
        code: 'bad_request',
        message: 'body.isPlaceholder is read-only',
        data: [{ path: 'body.isPlaceholder', message: 'is read-only' }],
      });
      const unknownField = await call('PATCH', `/v1/companies/${acme.id}`, { iconImageUrl: 'https://x.example' });
      assert.deepEqual(unknownField.json().data, [{ path: 'body.iconImageUrl', message: 'is not a known field' }]);
    });

    test('DELETE moves clients with no other company to new placeholders; others keep their other companies', async (t) => {
      const { h, ws, call } = await setup(t, backend);
      const acme = (await call('POST', '/v1/companies', { name: 'Acme' })).json();
      const beta = (await call('POST', '/v1/companies', { name: 'Beta' })).json();
      const solo = (
        await call('POST', '/v1/clients', { email: 'solo@example.com', givenName: 'Solo', familyName: 'One', companyId: acme.id })
      ).json();
      const multi = (
        await call('POST', '/v1/clients', { email: 'multi@example.com', givenName: 'Multi', familyName: 'Two', companyId: acme.id })
      ).json();
      // A second membership for `multi` (the API has no route that adds one yet).
      await h.app.ctx.db
        .insertInto('client_companies')
        .values({ workspace_id: ws.workspaceId, client_id: multi.id, company_id: beta.id, client_created_at: multi.createdAt })
        .execute();
      await h.app.ctx.db
        .updateTable('clients')
        .set({ company_ids: `${acme.id},${beta.id}` })
        .where('id', '=', multi.id)
        .execute();

      const res = await call('DELETE', `/v1/companies/${acme.id}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { id: acme.id, object: 'company', deleted: true });
      assert.equal((await call('GET', `/v1/companies/${acme.id}`)).statusCode, 404);

      const movedSolo = (await call('GET', `/v1/clients/${solo.id}`)).json();
      assert.notEqual(movedSolo.companyId, acme.id);
      assert.deepEqual(movedSolo.companyIds, [movedSolo.companyId]);
      const placeholder = (await call('GET', `/v1/companies/${movedSolo.companyId}`)).json();
      assert.deepEqual([placeholder.isPlaceholder, placeholder.name], [true, 'Solo One']);
      const movedMulti = (await call('GET', `/v1/clients/${multi.id}`)).json();
      assert.deepEqual([movedMulti.companyId, movedMulti.companyIds], [beta.id, [beta.id]]);
      assert.deepEqual(
        (await call('GET', `/v1/clients?companyId=${beta.id}`)).json().data.map((c: { id: string }) => c.id),
        [multi.id],
      );
      const deleted = present(
        (await auditEntries(h, ws.workspaceId)).find((e) => e.event_type === 'companyDeleted'),
        'companyDeleted entry',
      );
      assert.deepEqual(deleted.context, { companyId: acme.id, name: 'Acme' });
    });

    test("another workspace's company is invisible (404) on every route", async (t) => {
      const { h, call } = await setup(t, backend);
      const acme = (await call('POST', '/v1/companies', { name: 'Acme' })).json();
      const other = await h.workspace('Other');
      const notFound = { code: 'not_found', message: 'Company not found.', data: null };
      for (const [method, payload] of [['GET'], ['PATCH', { name: 'Mine' }], ['DELETE']] as const) {
        const res = await h.as(other.apiKey, { method, url: `/v1/companies/${acme.id}`, ...(payload ? { payload } : {}) });
        assert.equal(res.statusCode, 404, method);
        assert.deepEqual(res.json(), notFound, method);
      }
      assert.deepEqual((await h.as(other.apiKey, { method: 'GET', url: '/v1/companies?name=Acme' })).json(), { data: [] });
      assert.equal((await call('GET', `/v1/companies/${acme.id}`)).json().name, 'Acme');
    });
  });
}
