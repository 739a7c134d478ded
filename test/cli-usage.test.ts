import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase } from '../src/db/open.js';
import { oneJson, portal } from './helpers/cli.js';
import { freshDatabaseUrl } from './helpers/harness.js';

/**
 * The `portal` command's usage: its options per command, its help, and input checked by the schemas, on SQLite (what
 * it does with each database: test/cli.test.ts). A file of its own, so that the per-backend file splits by backend.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

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
