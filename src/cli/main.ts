import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { openDatabase } from '../db/open.js';
import { MigrationError, migrateToLatest } from '../db/migrate.js';
import { ApiError } from '../lib/errors.js';
import { customFieldsCommand } from './custom-fields.js';
import { internalUsersCommand } from './internal-users.js';
import { keysCommand } from './keys.js';
import { UsageError, printResult } from './output.js';
import { sessionsCommand } from './sessions.js';
import { workspacesCommand } from './workspaces.js';

const USAGE = `Usage: portal <command> [options] [--json]

  serve                                              run the server
  migrate                                            apply pending migrations
  workspaces create --name N [--daily-quota N]       create a workspace and its first key
  workspaces update --workspace W [--name N] [--daily-quota N]
                                                     rename a workspace or change its daily quota
  keys create --workspace W [--app APP_ID]           create a workspace key (or an app key)
  keys revoke --workspace W --key-id K               revoke a key
  internal-users create --workspace W --email E --given-name G --family-name F
                        [--role admin|staff] [--limit-to-companies ID,ID]
                                                     create an internal user (staff by default)
  custom-fields create --workspace W --entity client|company --key K --name N
                       --type T [--options L1,L2]    define a custom field (labels for multiSelect)
  sessions create --workspace W --api-key KEY (--client C [--company X] | --internal-user U)
                                                     mint an end-user session token for an app key
  sessions revoke --workspace W --token-id T         revoke a session

The environment selects the database (DATABASE_URL, default sqlite:./data/portal.db).`;

/** Every command group: its sub-commands and their options. */
const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  'daily-quota': { type: 'string' },
  workspace: { type: 'string' },
  app: { type: 'string' },
  'key-id': { type: 'string' },
  entity: { type: 'string' },
  key: { type: 'string' },
  type: { type: 'string' },
  options: { type: 'string' },
  email: { type: 'string' },
  'given-name': { type: 'string' },
  'family-name': { type: 'string' },
  role: { type: 'string' },
  'limit-to-companies': { type: 'string' },
  'api-key': { type: 'string' },
  client: { type: 'string' },
  company: { type: 'string' },
  'internal-user': { type: 'string' },
  'token-id': { type: 'string' },
} as const;

export type CliValues = ReturnType<typeof parse>['values'];

type CommandGroup = (sub: string | undefined, values: CliValues, database: Database, json: boolean) => Promise<void>;

/** The command groups that work on the database (migrated first), by name. */
const GROUPS: Record<string, CommandGroup> = {
  workspaces: workspacesCommand,
  keys: keysCommand,
  'internal-users': internalUsersCommand,
  'custom-fields': customFieldsCommand,
  sessions: sessionsCommand,
};

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(loadConfig().databaseUrl);
  try {
    await migrateToLatest(database);
    return await fn(database);
  } finally {
    await database.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    const { values, positionals } = parse(argv);
    json = values.json === true;
    const [command, sub] = positionals;
    if (values.help || !command) {
      process.stdout.write(`${USAGE}\n`);
      return command || values.help ? 0 : 2;
    }
    switch (command) {
      case 'serve':
        // Imported here: the server's dependencies would slow every other command's start.
        await (await import('../server.js')).startServer(loadConfig());
        return -1; // keep running
      case 'migrate': {
        const database = openDatabase(loadConfig().databaseUrl);
        try {
          const applied = await migrateToLatest(database);
          printResult(json, { applied }, applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
        } finally {
          await database.close();
        }
        return 0;
      }
      default: {
        const group = Object.hasOwn(GROUPS, command) ? GROUPS[command] : undefined;
        if (!group) throw new UsageError(`unknown command "${command}"`);
        await withDatabase((database) => group(sub, values, database, json));
        return 0;
      }
    }
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const known = usage || error instanceof ApiError || error instanceof ConfigError || error instanceof MigrationError;
    const message = known ? (error as Error).message : `unexpected error: ${(error as Error).stack ?? error}`;
    if (json) {
      const code = error instanceof ApiError ? error.code : usage ? 'usage' : 'error';
      process.stdout.write(`${JSON.stringify({ error: { code, message: (error as Error).message } })}\n`);
    } else {
      process.stderr.write(`portal: ${message}\n${usage ? `\n${USAGE}\n` : ''}`);
    }
    return usage ? 2 : 1;
  }
}
