import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, type Harness, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { buildApp } from '../../../app.js';
import { loadConfig } from '../../../config.js';
import { systemCaller, workspaceAccess } from '../../../lib/caller.js';
import type { CustomFieldCreate } from './custom-fields.schemas.js';
import { createCustomField } from './custom-fields.service.js';
import { mergeCustomFields, normalizeCustomFields } from './custom-fields.values.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { present } from '../../../../test/helpers/present.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOT_FOUND = { code: 'not_found', message: 'Custom field not found.', data: null };

/** Creates a definition one second after the previous one, so list order is predictable. */
async function define(h: Harness, workspaceId: string, input: CustomFieldCreate) {
  h.clock.advance(1000);
  return createCustomField(h.app.ctx.database, systemCaller(workspaceId, h.clock.now()), input);
}

for (const backend of BACKENDS) {
  describe(`portal custom-fields create (contract §7) [${backend}]`, () => {
    test('--json prints {id} or {id, options}; errors are one JSON object', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const create = (...args: string[]) => portal(url, 'custom-fields', 'create', '--workspace', ws.workspaceId, ...args, '--json');

      const text = await create('--entity', 'client', '--key', 'tier', '--name', 'Tier', '--type', 'text');
      assert.equal(text.code, 0);
      const textField = oneJson(text.stdout);
      assert.deepEqual(Object.keys(textField), ['id']);
      assert.match(textField.id, UUID);

      const select = await create(
        '--entity',
        'company',
        '--key',
        'tier',
        '--name',
        'Tier',
        '--type',
        'multiSelect',
        '--options',
        'Gold Tier, Silver,gold-tier!,Ünïcode',
      );
      assert.equal(select.code, 0);
      const selectField = oneJson(select.stdout);
      assert.deepEqual(Object.keys(selectField), ['id', 'options']);
      assert.deepEqual(
        selectField.options.map((o: { key: string; label: string }) => [o.key, o.label]),
        [
          ['gold_tier', 'Gold Tier'],
          ['silver', 'Silver'],
          ['gold_tier_2', 'gold-tier!'],
          ['unicode', 'Ünïcode'],
        ],
      );
      for (const o of selectField.options) assert.match(o.id, UUID);

      const duplicate = await create('--entity', 'client', '--key', 'tier', '--name', 'Again', '--type', 'number');
      assert.equal(duplicate.code, 1);
      assert.deepEqual(oneJson(duplicate.stdout), {
        error: { code: 'conflict', message: 'A client custom field with key "tier" already exists.' },
      });
      const optionsOnText = await create('--entity', 'client', '--key', 'notes', '--name', 'Notes', '--type', 'text', '--options', 'a');
      assert.deepEqual(oneJson(optionsOnText.stdout), {
        error: { code: 'bad_request', message: 'options are allowed only for multiSelect fields' },
      });
      const bad = await create('--entity', 'user', '--key', '1x', '--name', ' ', '--type', 'multiSelect');
      assert.equal(bad.code, 1);
      assert.deepEqual(oneJson(bad.stdout), { error: { code: 'bad_request', message: '4 fields are invalid' } });
      const missing = await create('--entity', 'client', '--name', 'No key', '--type', 'text');
      assert.equal(missing.code, 2);
      assert.deepEqual(oneJson(missing.stdout), { error: { code: 'usage', message: '--key is required' } });
      const noWorkspace = await portal(
        url,
        'custom-fields',
        'create',
        '--workspace',
        'nope',
        '--entity',
        'client',
        '--key',
        'k',
        '--name',
        'K',
        '--type',
        'text',
        '--json',
      );
      assert.deepEqual(oneJson(noWorkspace.stdout), { error: { code: 'not_found', message: 'Workspace not found.' } });
      const human = await portal(
        url,
        'custom-fields',
        'create',
        '--workspace',
        ws.workspaceId,
        '--entity',
        'client',
        '--key',
        'colors',
        '--name',
        'Colors',
        '--type',
        'multiSelect',
        '--options',
        'Red,Blue',
      );
      assert.equal(human.code, 0);
      assert.match(
        human.stdout,
        /^Custom field [0-9a-f-]{36} created: client colors \(multiSelect\)\.\n {2}red {2}Red {2}\([0-9a-f-]{36}\)\n {2}blue {2}Blue/,
      );

      // What the command created is what the API lists, options in the order given.
      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const res = await app.inject({ method: 'GET', url: '/v1/custom-fields?entityType=company', headers: { 'x-api-key': ws.apiKey } });
      assert.equal(res.statusCode, 200);
      const [listed] = res.json().data;
      assert.equal(listed.id, selectField.id);
      assert.deepEqual(listed.options, selectField.options);
    });
  });

  describe(`GET /v1/custom-fields and /v1/custom-fields/{id}/options [${backend}]`, () => {
    async function setup(t: Parameters<typeof harness>[0]) {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const tier = await define(h, ws.workspaceId, { entityType: 'client', key: 'tier', name: 'Tier', type: 'text' });
      const size = await define(h, ws.workspaceId, { entityType: 'company', key: 'size', name: 'Size', type: 'number' });
      const colors = await define(h, ws.workspaceId, {
        entityType: 'client',
        key: 'colors',
        name: 'Colors',
        type: 'multiSelect',
        options: ['Red', 'Green', 'Blue'],
      });
      const get = (url: string) => h.as(ws.apiKey, { method: 'GET', url });
      return { h, ws, tier, size, colors, get };
    }

    test('lists every definition newest first with its options; entityType filters', async (t) => {
      const { h, tier, size, colors, get } = await setup(t);
      const res = await get('/v1/custom-fields');
      assert.equal(res.statusCode, 200);
      const at = (s: number) => new Date(Date.parse('2026-01-15T12:00:00.000Z') + s * 1000).toISOString();
      const [red, green, blue] = present(colors.options, 'the options');
      assert.deepEqual(res.json(), {
        data: [
          {
            id: colors.id,
            object: 'customField',
            key: 'colors',
            name: 'Colors',
            type: 'multiSelect',
            entityType: 'client',
            options: [
              { id: red.id, key: 'red', label: 'Red' },
              { id: green.id, key: 'green', label: 'Green' },
              { id: blue.id, key: 'blue', label: 'Blue' },
            ],
            createdAt: at(3),
            updatedAt: at(3),
          },
          {
            id: size.id,
            object: 'customField',
            key: 'size',
            name: 'Size',
            type: 'number',
            entityType: 'company',
            createdAt: at(2),
            updatedAt: at(2),
          },
          {
            id: tier.id,
            object: 'customField',
            key: 'tier',
            name: 'Tier',
            type: 'text',
            entityType: 'client',
            createdAt: at(1),
            updatedAt: at(1),
          },
        ],
      });
      assert.deepEqual(
        (await get('/v1/custom-fields?entityType=company')).json().data.map((f: { id: string }) => f.id),
        [size.id],
      );
      assert.deepEqual(
        (await get('/v1/custom-fields?entityType=client')).json().data.map((f: { id: string }) => f.id),
        [colors.id, tier.id],
      );
      assert.equal((await get('/v1/custom-fields?entityType=')).json().data.length, 3, 'an empty filter is no filter');
      const bad = await get('/v1/custom-fields?entityType=user&sort=key');
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(bad.json(), {
        code: 'bad_request',
        message: '2 fields are invalid',
        data: [
          { path: 'query.sort', message: 'is not a known field' },
          { path: 'query.entityType', message: 'must be one of: client, company' },
        ],
      });
      const other = await h.workspace('Other');
      assert.deepEqual((await h.as(other.apiKey, { method: 'GET', url: '/v1/custom-fields' })).json(), { data: [] });
    });

    test('pages with limit and nextToken; a token is bound to its filters', async (t) => {
      const { tier, size, colors, get } = await setup(t);
      const first = (await get('/v1/custom-fields?limit=2')).json();
      assert.deepEqual(
        first.data.map((f: { id: string }) => f.id),
        [colors.id, size.id],
      );
      assert.equal(typeof first.nextToken, 'string');
      const second = await get(`/v1/custom-fields?limit=2&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.deepEqual(second.json(), {
        data: [
          {
            id: tier.id,
            object: 'customField',
            key: 'tier',
            name: 'Tier',
            type: 'text',
            entityType: 'client',
            createdAt: tier.createdAt,
            updatedAt: tier.updatedAt,
          },
        ],
      });
      const foreign = await get(`/v1/custom-fields?limit=2&entityType=client&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.equal(foreign.statusCode, 400);
      assert.deepEqual(foreign.json().data, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]);
    });

    test('options: newest first (the reverse of the order given), label filter, paging', async (t) => {
      const { colors, tier, get } = await setup(t);
      const [red, green, blue] = present(colors.options, 'the options');
      const option = (o: typeof red) => ({ id: o.id, object: 'customFieldOption', key: o.key, label: o.label });
      const all = await get(`/v1/custom-fields/${colors.id}/options`);
      assert.equal(all.statusCode, 200);
      assert.deepEqual(all.json(), { data: [option(blue), option(green), option(red)] });
      assert.deepEqual((await get(`/v1/custom-fields/${colors.id}/options?label=Green`)).json(), { data: [option(green)] });
      assert.deepEqual((await get(`/v1/custom-fields/${colors.id}/options?label=green`)).json(), { data: [] }, 'exact match');
      const first = (await get(`/v1/custom-fields/${colors.id}/options?limit=2`)).json();
      assert.deepEqual(first.data, [option(blue), option(green)]);
      const second = await get(`/v1/custom-fields/${colors.id}/options?limit=2&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.deepEqual(second.json(), { data: [option(red)] });
      assert.deepEqual((await get(`/v1/custom-fields/${tier.id}/options`)).json(), { data: [] }, 'a field without options');
    });

    test("another workspace's field, an unknown id and a non-UUID id are 404", async (t) => {
      const { h, colors } = await setup(t);
      const other = await h.workspace('Other');
      for (const id of [colors.id, '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', 'not-a-uuid']) {
        const res = await h.as(other.apiKey, { method: 'GET', url: `/v1/custom-fields/${id}/options` });
        assert.equal(res.statusCode, 404, id);
        assert.deepEqual(res.json(), NOT_FOUND);
      }
      const label = await h.as(other.apiKey, { method: 'GET', url: `/v1/custom-fields/${colors.id}/options?label=Red` });
      assert.deepEqual(label.json(), NOT_FOUND);
    });
  });

  describe(`normalizeCustomFields [${backend}]`, () => {
    async function setup(t: Parameters<typeof harness>[0]) {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const def = (key: string, type: CustomFieldCreate['type'], options?: string[]) =>
        define(h, ws.workspaceId, { entityType: 'client', key, name: key, type, options });
      for (const [key, type] of [
        ['note', 'text'],
        ['score', 'number'],
        ['mail', 'email'],
        ['site', 'url'],
        ['phone', 'phoneNumber'],
        ['home', 'address'],
      ] as const)
        await def(key, type);
      const colors = await def('colors', 'multiSelect', ['Red', 'Green', 'Blue']);
      await define(h, ws.workspaceId, { entityType: 'company', key: 'size', name: 'Size', type: 'text' });
      const normalize = (input: Record<string, unknown>, prefix?: string) =>
        normalizeCustomFields(h.app.ctx.db, workspaceAccess(ws.workspaceId), 'client', input, prefix);
      /** The `data` of the 400 the input is refused with. */
      const refusal = async (input: Record<string, unknown>) => {
        const error = await normalize(input).then(
          () => assert.fail('accepted'),
          (e) => e,
        );
        assert.equal(error.statusCode, 400);
        assert.equal(error.code, 'bad_request');
        return error.data;
      };
      return { h, ws, colors, normalize, refusal };
    }

    test('good values of every type are normalized', async (t) => {
      const { colors, normalize } = await setup(t);
      const [red, green] = present(colors.options, 'the options');
      assert.deepEqual(
        await normalize({
          note: 'anything at all',
          score: 5,
          mail: 'ada@example.com',
          site: 'https://example.com/a?b=c',
          phone: '+1 (555) 010-0000',
          colors: ['red', green.id, red.id, 'green'],
          home: { city: 'Lyon', country: 'FR', addressLine2: '' },
        }),
        {
          note: 'anything at all',
          score: '5',
          mail: 'ada@example.com',
          site: 'https://example.com/a?b=c',
          phone: '+1 (555) 010-0000',
          colors: [red.id, green.id],
          home: { city: 'Lyon', country: 'FR', addressLine2: '' },
        },
      );
      for (const [score, stored] of [
        [-1.5, '-1.5'],
        ['-1.5', '-1.5'],
        ['42', '42'],
        [0.25, '0.25'],
        ['1e3', '1e3'],
      ]) {
        assert.deepEqual(await normalize({ score }), { score: stored }, String(score));
      }
      assert.deepEqual(await normalize({ site: 'http://localhost:8080' }), { site: 'http://localhost:8080' });
      assert.deepEqual(await normalize({ phone: '5550100' }), { phone: '5550100' });
    });

    test('each bad value is refused naming its key', async (t) => {
      const { refusal } = await setup(t);
      const cases: [string, unknown, string][] = [
        ['note', 5, 'must be a string'],
        ['note', ['a'], 'must be a string'],
        ['score', 'abc', 'must be a number or a numeric string'],
        ['score', '0x10', 'must be a number or a numeric string'],
        ['score', ' 5', 'must be a number or a numeric string'],
        ['score', true, 'must be a number or a numeric string'],
        ['mail', 'ada@', 'must be an email address'],
        ['mail', 'ada example@x.com', 'must be an email address'],
        ['site', 'example.com', 'must be an http or https URL'],
        ['site', 'ftp://example.com', 'must be an http or https URL'],
        ['site', 'javascript:alert(1)', 'must be an http or https URL'],
        ['phone', 'call me', 'must be a phone number'],
        ['phone', '12', 'must be a phone number'],
        ['colors', 'red', 'must be an array of option ids or keys'],
        ['colors', ['red', 7], 'must be an array of option ids or keys'],
        ['colors', ['red', 'purple', 'Blue'], 'has unknown options: purple, Blue'],
        ['home', 'Lyon', 'must be an address object'],
        ['home', ['Lyon'], 'must be an address object'],
        ['home', { city: 'Lyon', street: 'x', floor: 2 }, 'has unknown address properties: street, floor'],
        ['home', { city: 1 }, 'has address properties that are not strings: city'],
      ];
      for (const [key, value, message] of cases) {
        assert.deepEqual(
          await refusal({ [key]: value }),
          [{ path: `body.customFields.${key}`, message }],
          `${key}: ${JSON.stringify(value)}`,
        );
      }
    });

    test('every failing key is reported at once, unknown keys and other entities’ keys included', async (t) => {
      const { normalize } = await setup(t);
      await assert.rejects(normalize({ note: 'ok', size: 'L', score: 'x', nope: null, mail: 'bad' }), {
        statusCode: 400,
        code: 'bad_request',
        message: '4 custom fields are invalid',
        data: [
          { path: 'body.customFields.size', message: 'is not a custom field of clients' },
          { path: 'body.customFields.score', message: 'must be a number or a numeric string' },
          { path: 'body.customFields.nope', message: 'is not a custom field of clients' },
          { path: 'body.customFields.mail', message: 'must be an email address' },
        ],
      });
      await assert.rejects(normalize({ score: 'x' }, 'customFields'), {
        message: 'customFields.score must be a number or a numeric string',
        data: [{ path: 'customFields.score', message: 'must be a number or a numeric string' }],
      });
    });

    test('"", [] and null clear; an empty input reads nothing', async (t) => {
      const { normalize } = await setup(t);
      assert.deepEqual(await normalize({ note: '', colors: [], home: null, score: null, site: '' }), {
        note: null,
        colors: null,
        home: null,
        score: null,
        site: null,
      });
      // No database at all: an empty input must not query.
      assert.deepEqual(await normalizeCustomFields(undefined as never, workspaceAccess('w'), 'company', {}), {});
    });
  });
}

test('mergeCustomFields: merges key by key and removes nulls, leaving its inputs alone', () => {
  const existing = { note: 'a', colors: ['x'], home: { city: 'Lyon' } };
  const merged = mergeCustomFields(existing, { colors: null, note: 'b', score: '3', gone: null });
  assert.deepEqual(merged, { note: 'b', home: { city: 'Lyon' }, score: '3' });
  assert.deepEqual(existing, { note: 'a', colors: ['x'], home: { city: 'Lyon' } });
  assert.deepEqual(mergeCustomFields({}, {}), {});
});
