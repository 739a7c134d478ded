import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { BACKENDS, type Harness, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { buildApp } from '../../../app.js';
import { loadConfig } from '../../../config.js';
import { openDatabase } from '../../../db/open.js';
import type { DB } from '../../../db/schema.js';
import { isoAt } from '../../../lib/clock.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { validInput } from '../../../lib/validate.js';
import { InternalUserCreate } from './internal-users.schemas.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { type InternalUserFields, createTestInternalUser } from '../../../../test/helpers/factories.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = { code: 'not_found', message: 'Internal user not found.', data: null };

/** A company row written directly: the companies module is not needed to have something to limit to. */
async function insertCompany(db: Kysely<DB>, workspaceId: string, name: string): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await db
    .insertInto('companies')
    .values({
      id,
      workspace_id: workspaceId,
      name,
      name_key: name.toLowerCase(),
      fallback_color: '#123456',
      icon_image_url: null,
      is_placeholder: 0,
      custom_fields: '{}',
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

function auditRows(db: Kysely<DB>) {
  return db
    .selectFrom('audit_log')
    .select(['workspace_id', 'event_type', 'event_description', 'source', 'actor_id', 'api_key_ref', 'context'])
    .where('event_type', '=', 'internalUserCreated')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Creates through the service as the `portal` command does, at the harness clock's time. */
function create(h: Harness, workspaceId: string, input: Partial<InternalUserFields> = {}) {
  const n = randomUUID().slice(0, 8);
  return createTestInternalUser(h, workspaceId, { email: `user-${n}@example.com`, givenName: 'Grace', familyName: 'Hopper', ...input });
}

for (const backend of BACKENDS) {
  describe(`portal internal-users create (contract §7) [${backend}]`, () => {
    test('--json prints {id}; the user is served by the API and audited', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const database = openDatabase(url);
      t.after(() => database.close());
      const [c1, c2] = [
        await insertCompany(database.db, ws.workspaceId, 'North'),
        await insertCompany(database.db, ws.workspaceId, 'South'),
      ];

      const common = ['internal-users', 'create', '--workspace', ws.workspaceId, '--json'];
      const plain = await portal(url, ...common, '--email', ' Ada@Example.com ', '--given-name', 'Ada', '--family-name', 'Lovelace');
      assert.equal(plain.code, 0, plain.stderr);
      const ada = oneJson(plain.stdout);
      assert.deepEqual(Object.keys(ada), ['id']);
      assert.match(ada.id, UUID);
      const limited = await portal(
        url,
        ...common,
        '--email',
        'alan@example.com',
        '--given-name',
        'Alan',
        '--family-name',
        'Turing',
        '--role',
        'admin',
        '--limit-to-companies',
        `${c1}, ${c2},${c1}`,
      );
      assert.equal(limited.code, 0, limited.stderr);
      const alan = oneJson(limited.stdout);
      assert.deepEqual(Object.keys(alan), ['id']);

      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const get = (id: string) => app.inject({ method: 'GET', url: `/v1/internal-users/${id}`, headers: { 'x-api-key': ws.apiKey } });
      const adaBody = (await get(ada.id)).json();
      assert.match(adaBody.createdAt, ISO);
      assert.deepEqual(adaBody, {
        id: ada.id,
        object: 'internalUser',
        createdAt: adaBody.createdAt,
        updatedAt: adaBody.createdAt,
        email: 'Ada@Example.com',
        givenName: 'Ada',
        familyName: 'Lovelace',
        role: 'staff',
        isClientAccessLimited: false,
        companyAccessList: [],
        fallbackColor: fallbackColorFor(ada.id),
      });
      const alanRes = await get(alan.id);
      assert.equal(alanRes.statusCode, 200);
      assert.deepEqual(alanRes.json(), {
        id: alan.id,
        object: 'internalUser',
        createdAt: alanRes.json().createdAt,
        updatedAt: alanRes.json().createdAt,
        email: 'alan@example.com',
        givenName: 'Alan',
        familyName: 'Turing',
        role: 'admin',
        isClientAccessLimited: true,
        companyAccessList: [c1, c2],
        fallbackColor: fallbackColorFor(alan.id),
      });
      const stored = await database.db
        .selectFrom('internal_users')
        .select(['email_key', 'is_client_access_limited', 'company_access_list'])
        .where('id', '=', alan.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { email_key: 'alan@example.com', is_client_access_limited: 1, company_access_list: `${c1},${c2}` });

      assert.deepEqual(await auditRows(database.db), [
        {
          workspace_id: ws.workspaceId,
          event_type: 'internalUserCreated',
          event_description: 'Internal user Ada@Example.com created',
          source: 'system',
          actor_id: null,
          api_key_ref: null,
          context: JSON.stringify({ internalUserId: ada.id, email: 'Ada@Example.com', role: 'staff' }),
        },
        {
          workspace_id: ws.workspaceId,
          event_type: 'internalUserCreated',
          event_description: 'Internal user alan@example.com created',
          source: 'system',
          actor_id: null,
          api_key_ref: null,
          context: JSON.stringify({ internalUserId: alan.id, email: 'alan@example.com', role: 'admin', companyAccessList: [c1, c2] }),
        },
      ]);

      const human = await portal(
        url,
        'internal-users',
        'create',
        '--workspace',
        ws.workspaceId,
        '--email',
        'kay@example.com',
        '--given-name',
        'Kay',
        '--family-name',
        'Nygaard',
        '--limit-to-companies',
        c1,
      );
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^Internal user [0-9a-f-]{36} created: Kay Nygaard <kay@example\.com>, staff, limited to 1 company\.\n$/);
    });

    test('errors under --json are one JSON object, exit 1 (2 for usage), and write nothing', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const other = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Other', '--json')).stdout);
      const database = openDatabase(url);
      t.after(() => database.close());
      const foreignCompany = await insertCompany(database.db, other.workspaceId, 'Elsewhere');
      const cli = (...args: string[]) =>
        portal(
          url,
          'internal-users',
          'create',
          '--workspace',
          ws.workspaceId,
          '--given-name',
          'Ada',
          '--family-name',
          'Lovelace',
          '--json',
          ...args,
        );
      assert.equal((await cli('--email', 'ada@example.com')).code, 0);

      const cases: [string, Awaited<ReturnType<typeof cli>>, number, object][] = [
        [
          'duplicate email in another case',
          await cli('--email', ' ADA@example.COM'),
          1,
          { code: 'conflict', message: 'An internal user with email ADA@example.COM already exists in this workspace.' },
        ],
        [
          "another workspace's company",
          await cli('--email', 'b@example.com', '--limit-to-companies', foreignCompany),
          1,
          { code: 'bad_request', message: `companyAccessList: not a company of this workspace: ${foreignCompany}` },
        ],
        [
          'unknown role',
          await cli('--email', 'c@example.com', '--role', 'owner'),
          1,
          { code: 'bad_request', message: 'role must be one of: admin, staff' },
        ],
        ['malformed email', await cli('--email', 'not-an-email'), 1, { code: 'bad_request', message: 'email must match format "email"' }],
        ['missing email', await cli(), 2, { code: 'usage', message: '--email is required' }],
        [
          'empty company list',
          await cli('--email', 'd@example.com', '--limit-to-companies', ' , '),
          2,
          { code: 'usage', message: '--limit-to-companies needs at least one company id' },
        ],
        [
          'unknown workspace',
          await portal(
            url,
            'internal-users',
            'create',
            '--workspace',
            randomUUID(),
            '--email',
            'e@example.com',
            '--given-name',
            'E',
            '--family-name',
            'F',
            '--json',
          ),
          1,
          { code: 'not_found', message: 'Workspace not found.' },
        ],
        [
          'unknown sub-command',
          await portal(url, 'internal-users', 'rename', '--json'),
          2,
          {
            code: 'usage',
            message:
              'usage: portal internal-users create --workspace W --email E --given-name G --family-name F [--role admin|staff] [--limit-to-companies ID,ID]' +
              ' | portal internal-users update --workspace W --internal-user U [--role admin|staff] [--limit-to-companies ID,ID | --all-companies]' +
              ' | portal internal-users delete --workspace W --internal-user U',
          },
        ],
      ];
      for (const [name, result, code, error] of cases) {
        assert.equal(result.code, code, name);
        assert.deepEqual(oneJson(result.stdout), { error }, name);
      }
      const users = await database.db.selectFrom('internal_users').select('email').execute();
      assert.deepEqual(users, [{ email: 'ada@example.com' }]);
      assert.equal((await auditRows(database.db)).length, 1);
    });
  });

  describe(`internal users service [${backend}]`, () => {
    test('every invalid field of the input (InternalUserCreate) is reported at once, as a 400', () => {
      assert.throws(
        () => validInput(InternalUserCreate, { email: 'nope', givenName: ' ', familyName: '', role: 'root', companyAccessList: [] }),
        {
          statusCode: 400,
          code: 'bad_request',
          message: '6 fields are invalid',
          data: [
            { path: 'email', message: 'must match format "email"' },
            { path: 'givenName', message: 'must match pattern "\\S"' },
            { path: 'familyName', message: 'must not have fewer than 1 characters' },
            { path: 'familyName', message: 'must match pattern "\\S"' },
            { path: 'role', message: 'must be one of: admin, staff' },
            { path: 'companyAccessList', message: 'must not have fewer than 1 items' },
          ],
        },
      );
    });

    test('emails are unique per workspace, case-insensitively; another workspace may reuse one', async (t) => {
      const h = await harness(t, backend);
      const a = await h.workspace('A');
      const b = await h.workspace('B');
      await create(h, a.workspaceId, { email: 'Ada@Example.com' });
      await assert.rejects(create(h, a.workspaceId, { email: 'ada@example.COM' }), {
        statusCode: 409,
        code: 'conflict',
        message: 'An internal user with email ada@example.COM already exists in this workspace.',
      });
      assert.equal((await create(h, b.workspaceId, { email: 'ada@example.com' })).email, 'ada@example.com');
    });

    test('each unknown company is named in a 400', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const known = await insertCompany(h.app.ctx.db, ws.workspaceId, 'Known');
      const [x, y] = [randomUUID(), 'not-a-uuid'];
      await assert.rejects(create(h, ws.workspaceId, { companyAccessList: [known, x, y] }), {
        statusCode: 400,
        code: 'bad_request',
        message: `companyAccessList: not a company of this workspace: ${x}, ${y}`,
        data: [
          { path: 'companyAccessList', message: `${x} is not a company of this workspace` },
          { path: 'companyAccessList', message: `${y} is not a company of this workspace` },
        ],
      });
    });
  });

  describe(`GET /v1/internal-users [${backend}]`, () => {
    test('get: the exact item, avatarImageUrl only when set; another workspace’s or a malformed id is 404', async (t) => {
      const h = await harness(t, backend);
      const a = await h.workspace('A');
      const b = await h.workspace('B');
      const company = await insertCompany(h.app.ctx.db, a.workspaceId, 'North');
      const user = await create(h, a.workspaceId, { email: 'grace@example.com', role: 'admin', companyAccessList: [company] });
      const at = isoAt(h.clock.now());
      const expected = {
        id: user.id,
        object: 'internalUser',
        createdAt: at,
        updatedAt: at,
        email: 'grace@example.com',
        givenName: 'Grace',
        familyName: 'Hopper',
        role: 'admin',
        isClientAccessLimited: true,
        companyAccessList: [company],
        fallbackColor: fallbackColorFor(user.id),
      };
      assert.deepEqual(user, expected, 'the service answers the API item');
      const res = await h.as(a.apiKey, { method: 'GET', url: `/v1/internal-users/${user.id}` });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), expected);

      await h.app.ctx.db
        .updateTable('internal_users')
        .set({ avatar_image_url: 'https://img.example.com/g.png' })
        .where('id', '=', user.id)
        .execute();
      const withAvatar = await h.as(a.apiKey, { method: 'GET', url: `/v1/internal-users/${user.id}` });
      assert.deepEqual(withAvatar.json(), { ...expected, avatarImageUrl: 'https://img.example.com/g.png' });

      for (const [name, key, id] of [
        ["another workspace's user", b.apiKey, user.id],
        ['a malformed id', a.apiKey, 'not-a-uuid'],
        ['an unknown id', a.apiKey, randomUUID()],
      ]) {
        const miss = await h.as(key, { method: 'GET', url: `/v1/internal-users/${id}` });
        assert.equal(miss.statusCode, 404, name);
        assert.deepEqual(miss.json(), NOT_FOUND, name);
      }
    });

    test('list: newest first in pages; another workspace’s users are absent; a closed querystring', async (t) => {
      const h = await harness(t, backend);
      const a = await h.workspace('A');
      const b = await h.workspace('B');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await create(h, a.workspaceId)).id);
        h.clock.advance(1000);
      }
      const theirs = await create(h, b.workspaceId);
      const list = (key: string, query: string) => h.as(key, { method: 'GET', url: `/v1/internal-users${query}` });

      const first = await list(a.apiKey, '?limit=2');
      assert.equal(first.statusCode, 200);
      assert.deepEqual(
        first.json().data.map((u: { id: string }) => u.id),
        [ids[2], ids[1]],
      );
      assert.equal(typeof first.json().nextToken, 'string');
      const second = await list(a.apiKey, `?limit=2&nextToken=${encodeURIComponent(first.json().nextToken)}`);
      assert.deepEqual(second.json(), { data: [await one(h, a.apiKey, ids[0])] });
      assert.deepEqual(
        (await list(a.apiKey, '')).json().data.map((u: { id: string }) => u.id),
        [ids[2], ids[1], ids[0]],
      );
      assert.deepEqual((await list(b.apiKey, '')).json(), { data: [theirs] });

      const foreign = await list(b.apiKey, `?nextToken=${encodeURIComponent(first.json().nextToken)}`);
      assert.equal(foreign.statusCode, 400, "A's token on B's list");
      assert.deepEqual(foreign.json().data, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]);
      const unknown = await list(a.apiKey, '?limit=2&email=x');
      assert.equal(unknown.statusCode, 400);
      assert.deepEqual(unknown.json(), {
        code: 'bad_request',
        message: 'query.email is not a known field',
        data: [{ path: 'query.email', message: 'is not a known field' }],
      });
      const tooMany = await list(a.apiKey, '?limit=1001');
      assert.equal(tooMany.statusCode, 400);
      assert.deepEqual(tooMany.json().data, [{ path: 'query.limit', message: 'must be <= 1000' }]);
    });
  });
}

async function one(h: Harness, apiKey: string, id: string) {
  return (await h.as(apiKey, { method: 'GET', url: `/v1/internal-users/${id}` })).json();
}
