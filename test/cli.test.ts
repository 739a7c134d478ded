import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { heldWithin } from './helpers/eventually.js';
import { oneJson, portal, portalWith } from './helpers/cli.js';
import { logoPng } from './helpers/images.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEY = /^ppk_[A-Za-z0-9_-]{59}$/;

for (const backend of BACKENDS) {
  describe(`portal command (contract §7) [${backend}]`, () => {
    test('migrate --json reports what it applied, then nothing', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      assert.deepEqual(oneJson((await portal(url, 'migrate', '--json')).stdout), { applied: Object.keys(MIGRATIONS) });
      assert.deepEqual(oneJson((await portal(url, 'migrate', '--json')).stdout), { applied: [] });
    });

    test('workspaces create, keys create and keys revoke --json, and the keys work against the API', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--daily-quota', '500', '--json')).stdout);
      assert.deepEqual(Object.keys(ws).sort(), ['apiKey', 'apiKeyId', 'workspaceId']);
      assert.match(ws.workspaceId, UUID);
      assert.match(ws.apiKeyId, UUID);
      assert.match(ws.apiKey, KEY);

      const key = oneJson((await portal(url, 'keys', 'create', '--workspace', ws.workspaceId, '--json')).stdout);
      assert.deepEqual(Object.keys(key).sort(), ['apiKey', 'apiKeyId']);
      const appId = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      const appKey = oneJson((await portal(url, 'keys', 'create', '--workspace', ws.workspaceId, '--app', appId, '--json')).stdout);
      assert.equal(appKey.appId, appId);
      assert.match(appKey.apiKey, KEY);

      const revoked = await portal(url, 'keys', 'revoke', '--workspace', ws.workspaceId, '--key-id', key.apiKeyId, '--json');
      assert.equal(revoked.code, 0);
      assert.deepEqual(oneJson(revoked.stdout), { apiKeyId: key.apiKeyId, revoked: true });

      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const me = (k: string) => app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': k } });
      assert.equal((await me(ws.apiKey)).statusCode, 200);
      assert.equal((await me(appKey.apiKey)).json().type, 'app');
      assert.equal((await me(key.apiKey)).statusCode, 401);
      const before = await app.inject({ method: 'GET', url: '/v1/workspaces', headers: { 'x-api-key': ws.apiKey } });
      assert.equal(before.json().dailyQuota, 500);
      assert.equal(before.headers['x-service-quota-limit'], '500');

      const updated = await portal(url, 'workspaces', 'update', '--workspace', ws.workspaceId, '--daily-quota', '750', '--json');
      assert.deepEqual(oneJson(updated.stdout), { workspaceId: ws.workspaceId, name: 'Acme', dailyQuota: 750, staffMfaRequired: false });
      // Another process changed it: the server's cached credential (which carries the quota) sees it within a second.
      await heldWithin(1000, 'the new quota applies', async () => {
        const after = await app.inject({ method: 'GET', url: '/v1/workspaces', headers: { 'x-api-key': ws.apiKey } });
        return after.headers['x-service-quota-limit'] === '750';
      });
      const bad = await portal(url, 'workspaces', 'update', '--workspace', ws.workspaceId, '--daily-quota', 'lots', '--json');
      assert.deepEqual(
        [bad.code, oneJson(bad.stdout)],
        [2, { error: { code: 'usage', message: '--daily-quota must be a non-negative integer' } }],
      );
    });

    // Rule (issue 44, point 1): the operator sets a workspace's logo from a file and removes it, as on the admin surface
    // (the same checks: its type from its bytes, never SVG; nothing written when refused); its URL is under PORTAL_URL.
    test('workspaces update --logo FILE and --remove-logo', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const dir = mkdtempSync(join(tmpdir(), 'portal-logo-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const env = { PORTAL_URL: 'https://portal.acme.test' };
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const logo = logoPng();
      writeFileSync(join(dir, 'logo.png'), logo);
      writeFileSync(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
      const update = (...args: string[]) => portalWith(env, url, 'workspaces', 'update', '--workspace', ws.workspaceId, ...args);

      const set = await update('--logo', join(dir, 'logo.png'), '--name', 'Acme Ltd', '--json');
      const logoUrl = `https://portal.acme.test/portal/${ws.workspaceId}/api/workspace/logo/${createHash('sha256').update(logo).digest('hex')}`;
      assert.deepEqual(
        [set.code, oneJson(set.stdout)],
        [0, { workspaceId: ws.workspaceId, name: 'Acme Ltd', dailyQuota: 2000, staffMfaRequired: false, logoUrl }],
      );
      const text = await update('--logo', join(dir, 'logo.png'));
      assert.equal(
        text.stdout,
        `Workspace ${ws.workspaceId}: name "Acme Ltd", daily quota 2000, TOTP optional for staff, logo at ${logoUrl}.\n`,
      );

      const svg = await update('--logo', join(dir, 'logo.svg'), '--name', 'Not renamed', '--json');
      assert.deepEqual(
        [svg.code, oneJson(svg.stdout)],
        [
          1,
          {
            error: {
              code: 'unsupported_media_type',
              message: 'body is not a PNG, JPEG, WebP or GIF image (its type is read from its bytes; SVG is never taken)',
            },
          },
        ],
      );
      const missing = await update('--logo', join(dir, 'none.png'), '--json');
      assert.equal(missing.code, 1);
      assert.match(oneJson(missing.stdout).error.message, /^Cannot read .*none\.png: ENOENT/);
      const both = await update('--logo', join(dir, 'logo.png'), '--remove-logo');
      assert.deepEqual([both.code, both.stderr.split('\n')[0]], [2, 'portal: give --logo or --remove-logo, not both']);
      const listed = oneJson((await portal(url, 'workspaces', 'list', '--json')).stdout);
      assert.equal(listed.data[0].name, 'Acme Ltd', 'the refused command renamed nothing');

      const removed = await update('--remove-logo', '--json');
      assert.deepEqual(
        [removed.code, oneJson(removed.stdout)],
        [0, { workspaceId: ws.workspaceId, name: 'Acme Ltd', dailyQuota: 2000, staffMfaRequired: false }],
      );
      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const gone = await app.inject({ method: 'GET', url: new URL(logoUrl).pathname });
      assert.equal(gone.statusCode, 404);
    });

    // Rule (issue 42, point 13): the operator lists workspaces and a workspace's keys from the command line; a key
    // listed shows a prefix to tell it apart, never its secret.
    test('workspaces list and keys list --json, and their lines without it', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const empty = await portal(url, 'workspaces', 'list');
      assert.deepEqual([empty.code, empty.stdout], [0, 'No workspace.\n']);
      const acme = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const beta = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Beta', '--sandbox', '--json')).stdout);
      const listed = oneJson((await portal(url, 'workspaces', 'list', '--json')).stdout);
      assert.deepEqual(
        listed.data.map((w: { id: string; name: string; sandbox: boolean }) => [w.id, w.name, w.sandbox]),
        [
          [beta.workspaceId, 'Beta', true],
          [acme.workspaceId, 'Acme', false],
        ],
      );
      assert.equal(listed.nextToken, undefined);
      const first = oneJson((await portal(url, 'workspaces', 'list', '--limit', '1', '--json')).stdout);
      assert.deepEqual([first.data.length, first.data[0].id, typeof first.nextToken], [1, beta.workspaceId, 'string']);
      const rest = oneJson((await portal(url, 'workspaces', 'list', '--next-token', first.nextToken, '--json')).stdout);
      assert.deepEqual([rest.data.map((w: { id: string }) => w.id), rest.nextToken], [[acme.workspaceId], undefined]);
      const text = await portal(url, 'workspaces', 'list');
      assert.equal(text.stdout, `${beta.workspaceId}  Beta  (sandbox)\n${acme.workspaceId}  Acme\n`);

      const appId = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      const app = oneJson(
        (await portal(url, 'keys', 'create', '--workspace', acme.workspaceId, '--app', appId, '--label', 'job', '--json')).stdout,
      );
      await portal(url, 'keys', 'revoke', '--workspace', acme.workspaceId, '--key-id', app.apiKeyId);
      const keys = await portal(url, 'keys', 'list', '--workspace', acme.workspaceId, '--json');
      assert.equal(keys.code, 0);
      const { data } = oneJson(keys.stdout);
      assert.deepEqual(
        data.map((k: Record<string, unknown>) => [k.id, k.prefix, k.kind, k.appId, k.label, typeof k.createdAt, typeof k.revokedAt]),
        [
          [acme.apiKeyId, acme.apiKey.slice(0, 10), 'workspace', null, null, 'string', 'object'],
          [app.apiKeyId, app.apiKey.slice(0, 10), 'app', appId, 'job', 'string', 'string'],
        ],
      );
      assert.deepEqual(Object.keys(data[0]).sort(), ['appId', 'createdAt', 'id', 'kind', 'label', 'prefix', 'revokedAt']);
      const lines = (await portal(url, 'keys', 'list', '--workspace', acme.workspaceId)).stdout;
      assert.match(lines, new RegExp(`^${acme.apiKey.slice(0, 10)}…  ${acme.apiKeyId}  \\(no label\\) +workspace  created `, 'm'));
      assert.match(lines, new RegExp(`^${app.apiKey.slice(0, 10)}…  ${app.apiKeyId}  job +app ${appId}  created .+  revoked `, 'm'));
      for (const secret of [acme.apiKey, app.apiKey]) {
        assert.ok(!keys.stdout.includes(secret.slice(10)) && !lines.includes(secret.slice(10)), 'never a secret');
      }
      const none = await portal(url, 'keys', 'list', '--workspace', appId, '--json');
      assert.deepEqual([none.code, oneJson(none.stdout)], [1, { error: { code: 'not_found', message: 'Workspace not found.' } }]);
    });

    test('errors under --json are one JSON object and a non-zero exit', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const missing = await portal(url, 'workspaces', 'create', '--json');
      assert.equal(missing.code, 2);
      assert.deepEqual(oneJson(missing.stdout), { error: { code: 'usage', message: '--name is required' } });
      const unknown = await portal(
        url,
        'keys',
        'revoke',
        '--workspace',
        '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
        '--key-id',
        '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
        '--json',
      );
      assert.equal(unknown.code, 1);
      assert.deepEqual(oneJson(unknown.stdout), { error: { code: 'not_found', message: 'Workspace not found.' } });
      const human = await portal(url, 'workspaces', 'create', '--name', 'Human');
      assert.equal(human.code, 0);
      assert.match(human.stdout, /^Workspace [0-9a-f-]{36} created\.\nWorkspace API key \(shown only now\): ppk_/);
    });
  });
}

/** The usage line of each command the usage-error tests run. */
const COMMAND_USAGE: Record<string, string> = {
  'keys list': 'portal keys list --workspace W',
  'keys create': 'portal keys create --workspace W [--app APP_ID] [--label L]',
  'keys revoke': 'portal keys revoke --workspace W --key-id K',
  'workspaces create': 'portal workspaces create --name N [--daily-quota N] [--sandbox]',
  'sessions revoke': 'portal sessions revoke --workspace W --token-id T',
  'custom-fields create': 'portal custom-fields create --workspace W --entity client|company --key K --name N --type T [--options L1,L2]',
  'internal-users create':
    'portal internal-users create --workspace W --email E --given-name G --family-name F [--role admin|staff] [--limit-to-companies ID,ID]',
  migrate: 'portal migrate',
};

describe('portal command: options per command, input checked by the schemas', () => {
  const GOOD_ID = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';

  test("a usage error shows that command's usage (a group's commands when the command word is missing), the global list only for an unknown command (issue 29)", async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const missing = await portal(url, 'workspaces', 'create');
    assert.deepEqual(
      [missing.code, missing.stdout, missing.stderr],
      [2, '', `portal: --name is required\n\nUsage: ${COMMAND_USAGE['workspaces create']}\nportal --help lists every command.\n`],
    );
    const seed = await portal(url, 'seed');
    assert.deepEqual(
      [seed.code, seed.stderr],
      [2, 'portal: --workspace is required\n\nUsage: portal seed --workspace W\nportal --help lists every command.\n'],
    );
    const serve = await portal(url, 'serve', '--port', '1');
    assert.deepEqual(
      [serve.code, serve.stderr],
      [2, 'portal: portal serve does not take --port\n\nUsage: portal serve [--seed]\nportal --help lists every command.\n'],
    );
    const group = await portal(url, 'keys');
    assert.deepEqual(
      [group.code, group.stderr],
      [
        2,
        `portal: usage: ${COMMAND_USAGE['keys list']} | ${COMMAND_USAGE['keys create']} | ${COMMAND_USAGE['keys revoke']}\nportal --help lists every command.\n`,
      ],
    );
    const unknown = await portal(url, 'frobnicate');
    assert.equal(unknown.code, 2);
    assert.ok(
      unknown.stderr.startsWith('portal: unknown command "frobnicate"\n\nUsage: portal <command> [options] [--json]\n'),
      unknown.stderr,
    );
    assert.ok(unknown.stderr.split('\n').length > 40, 'the global usage lists every command');
  });

  // Rule (issue 42, point 13): `--help` after a command prints that command's usage (a group's commands), not the
  // global list; the global list names every command group, qa included.
  test('--help after a command prints its own usage; portal --help lists every group', async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const own = await portal(url, 'keys', 'create', '--help');
    assert.deepEqual([own.code, own.stdout, own.stderr], [0, `Usage: ${COMMAND_USAGE['keys create']}\n`, '']);
    const group = await portal(url, 'keys', '--help');
    assert.deepEqual(
      [group.code, group.stdout],
      [0, `Usage: ${COMMAND_USAGE['keys list']}\n       ${COMMAND_USAGE['keys create']}\n       ${COMMAND_USAGE['keys revoke']}\n`],
    );
    assert.deepEqual(
      [(await portal(url, 'migrate', '-h')).stdout, (await portal(url, 'serve', '--help')).stdout],
      ['Usage: portal migrate\n', 'Usage: portal serve [--seed]\n'],
    );
    assert.equal((await portal(url, 'seed', '--help')).stdout, 'Usage: portal seed --workspace W\n');
    const global = await portal(url, '--help');
    assert.equal(global.code, 0);
    const { GROUPS } = await import('../src/cli/commands.js');
    for (const name of [...Object.keys(GROUPS), 'serve', 'seed', 'migrate', 'backup'])
      assert.match(global.stdout, new RegExp(`^  ${name} `, 'm'), `${name} in portal --help`);
    assert.equal((await portal(url, 'frobnicate', '--help')).stdout, global.stdout, 'an unknown command: the global list');
  });

  test('an option the command does not take, or a word after it, is a usage error (exit 2)', async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const cases: [string[], string][] = [
      [['keys', 'create', '--workspace', GOOD_ID, '--email', 'x@example.com'], 'portal keys create does not take --email'],
      [['keys', 'revoke', '--workspace', GOOD_ID, '--key-id', GOOD_ID, '--app', GOOD_ID], 'portal keys revoke does not take --app'],
      [['workspaces', 'create', '--name', 'Acme', '--workspace', GOOD_ID], 'portal workspaces create does not take --workspace'],
      [
        ['sessions', 'revoke', '--workspace', GOOD_ID, '--token-id', GOOD_ID, '--client', GOOD_ID],
        'portal sessions revoke does not take --client',
      ],
      [
        [
          'custom-fields',
          'create',
          '--workspace',
          GOOD_ID,
          '--entity',
          'client',
          '--key',
          'k',
          '--name',
          'K',
          '--type',
          'text',
          '--role',
          'admin',
        ],
        'portal custom-fields create does not take --role',
      ],
      [
        [
          'internal-users',
          'create',
          '--workspace',
          GOOD_ID,
          '--email',
          'a@example.com',
          '--given-name',
          'A',
          '--family-name',
          'B',
          '--app',
          GOOD_ID,
        ],
        'portal internal-users create does not take --app',
      ],
      [['migrate', '--name', 'Acme'], 'portal migrate does not take --name'],
      [['keys', 'create', '--workspace', GOOD_ID, 'extra'], 'portal keys create takes no argument "extra"'],
    ];
    for (const [args, message] of cases) {
      const json = await portal(url, ...args, '--json');
      assert.deepEqual([json.code, oneJson(json.stdout)], [2, { error: { code: 'usage', message } }], args.join(' '));
      const text = await portal(url, ...args);
      assert.equal(text.code, 2, args.join(' '));
      assert.equal(text.stdout, '');
      // That command's usage, not the global list of every command (issue 29).
      const usage = COMMAND_USAGE[args[0] === 'migrate' ? 'migrate' : `${args[0]} ${args[1]}`];
      assert.equal(text.stderr, `portal: ${message}\n\nUsage: ${usage}\nportal --help lists every command.\n`, args.join(' '));
    }
    // Options and command words may still come in any order.
    const ws = oneJson((await portal(url, '--json', 'workspaces', '--name', 'Acme', 'create')).stdout);
    assert.match(ws.workspaceId, UUID);
    const database = openDatabase(url);
    try {
      assert.deepEqual(
        await database.db.selectFrom('workspaces').select('id').execute(),
        [{ id: ws.workspaceId }],
        'the refused commands created nothing',
      );
    } finally {
      await database.close(); // before the harness removes the file's directory
    }
  });

  test('a malformed --workspace, --app or --key-id is the same error as before', async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
    const cases: [string[], number, object][] = [
      [['keys', 'create', '--workspace', 'nope'], 1, { code: 'not_found', message: 'Workspace not found.' }],
      [['keys', 'revoke', '--workspace', 'nope', '--key-id', GOOD_ID], 1, { code: 'not_found', message: 'Workspace not found.' }],
      [
        ['internal-users', 'create', '--workspace', 'nope', '--email', 'a@example.com', '--given-name', 'A', '--family-name', 'B'],
        1,
        { code: 'not_found', message: 'Workspace not found.' },
      ],
      [
        ['custom-fields', 'create', '--workspace', `${GOOD_ID}x`, '--entity', 'client', '--key', 'k', '--name', 'K', '--type', 'text'],
        1,
        { code: 'not_found', message: 'Workspace not found.' },
      ],
      [['workspaces', 'update', '--workspace', 'nope', '--name', 'X'], 1, { code: 'not_found', message: 'Workspace not found.' }],
      [
        ['sessions', 'create', '--workspace', 'nope', '--api-key', ws.apiKey, '--internal-user', GOOD_ID],
        1,
        { code: 'not_found', message: 'Workspace not found.' },
      ],
      [
        ['keys', 'create', '--workspace', ws.workspaceId, '--app', 'nope'],
        2,
        { code: 'usage', message: '--app must be a UUID and --label 1 to 100 characters' },
      ],
      [['keys', 'revoke', '--workspace', ws.workspaceId, '--key-id', 'nope'], 1, { code: 'not_found', message: 'API key not found.' }],
      [
        ['sessions', 'revoke', '--workspace', ws.workspaceId, '--token-id', 'nope'],
        1,
        { code: 'not_found', message: 'Session not found.' },
      ],
    ];
    for (const [args, code, error] of cases) {
      const result = await portal(url, ...args, '--json');
      assert.deepEqual([result.code, oneJson(result.stdout)], [code, { error }], args.join(' '));
    }
  });

  test('invalid fields are one bad_request: `path message` for one, a count for several (each listed without --json)', async (t) => {
    const url = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
    const app = oneJson((await portal(url, 'keys', 'create', '--workspace', ws.workspaceId, '--app', GOOD_ID, '--json')).stdout);

    const email = await portal(
      url,
      'internal-users',
      'create',
      '--workspace',
      ws.workspaceId,
      '--email',
      'not-an-email',
      '--given-name',
      'A',
      '--family-name',
      'B',
      '--json',
    );
    assert.equal(email.code, 1);
    assert.equal(oneJson(email.stdout).error.code, 'bad_request');
    assert.match(oneJson(email.stdout).error.message, /^email\b/, 'the message names the field');

    const name = await portal(url, 'workspaces', 'create', '--name', '   ', '--json');
    assert.deepEqual([name.code, oneJson(name.stdout)], [1, { error: { code: 'bad_request', message: 'name must match pattern "\\S"' } }]);
    const rename = await portal(url, 'workspaces', 'update', '--workspace', ws.workspaceId, '--name', ' ', '--json');
    assert.deepEqual(
      [rename.code, oneJson(rename.stdout)],
      [1, { error: { code: 'bad_request', message: 'name must match pattern "\\S"' } }],
    );

    const session = [
      'sessions',
      'create',
      '--workspace',
      ws.workspaceId,
      '--api-key',
      app.apiKey,
      '--client',
      'nope',
      '--company',
      'nope either',
    ];
    const sessionJson = await portal(url, ...session, '--json');
    assert.deepEqual(
      [sessionJson.code, oneJson(sessionJson.stdout)],
      [1, { error: { code: 'bad_request', message: '2 fields are invalid' } }],
    );
    const sessionText = await portal(url, ...session);
    assert.equal(sessionText.code, 1);
    assert.equal(
      sessionText.stderr,
      'portal: 2 fields are invalid\n  clientId must match format "uuid"\n  companyId must match format "uuid"\n',
    );

    const field = [
      'custom-fields',
      'create',
      '--workspace',
      ws.workspaceId,
      '--entity',
      'user',
      '--key',
      '1x',
      '--name',
      ' ',
      '--type',
      'multiSelect',
      '--options',
      'Gold,, Gold',
    ];
    const fieldJson = await portal(url, ...field, '--json');
    assert.deepEqual([fieldJson.code, oneJson(fieldJson.stdout)], [1, { error: { code: 'bad_request', message: '5 fields are invalid' } }]);
    const fieldText = await portal(url, ...field);
    assert.equal(fieldText.code, 1);
    assert.equal(
      fieldText.stderr,
      [
        'portal: 5 fields are invalid',
        '  entityType must be one of: client, company',
        '  key must match pattern "^[a-zA-Z][a-zA-Z0-9_]{0,63}$"',
        '  name must match pattern "\\S"',
        '  options.1 must match pattern "\\S"',
        '  options.2 repeats an earlier label',
        '',
      ].join('\n'),
    );
    const database = openDatabase(url);
    try {
      assert.equal((await database.db.selectFrom('custom_fields').select('id').execute()).length, 0);
      assert.equal((await database.db.selectFrom('sessions').select('id').execute()).length, 0);
    } finally {
      await database.close();
    }
  });
});
