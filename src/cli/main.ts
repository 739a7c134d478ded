import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { openDatabase } from '../db/open.js';
import { MigrationError, migrateToLatest } from '../db/migrate.js';
import { ApiError, type FieldProblem } from '../lib/errors.js';
import { GLOBAL_OPTIONS, type Options, UsageError, type Values, groupUsage } from './command.js';
import { printResult } from './output.js';

const USAGE = `Usage: portal <command> [options] [--json]

  serve [--seed]                                     run the server (--seed or PORTAL_SEED_DEMO=1: demo data in a first workspace)
  seed --workspace W                                 fill a workspace with demo data
  migrate                                            apply pending migrations
  backup --out FILE                                  a consistent copy of the SQLite database (VACUUM INTO), server running or not
  workspaces list [--limit N] [--next-token T]       the workspaces, newest first
  workspaces create --name N [--daily-quota N] [--sandbox]
                                                     create a workspace and its first key (--sandbox: with a test clock)
  workspaces update --workspace W [--name N] [--daily-quota N] [--staff-mfa required|optional] [--brand-color #rrggbb]
                    [--logo FILE | --remove-logo]
                                                     rename a workspace, change its daily quota, its staff's TOTP policy,
                                                     its brand colour or its logo (a PNG, JPEG, WebP or GIF file)
  keys list --workspace W                            its keys: prefix, id, label, kind, created (never a secret)
  keys create --workspace W [--app APP_ID] [--label L]
                                                     create a workspace key (or an app key)
  keys revoke --workspace W --key-id K               revoke a key
  internal-users create --workspace W --email E --given-name G --family-name F
                        [--role admin|staff] [--limit-to-companies ID,ID]
                                                     create an internal user (staff by default)
  internal-users update --workspace W --internal-user U [--role admin|staff]
                        [--limit-to-companies ID,ID | --all-companies]
                                                     change its role or the companies it may see
  internal-users delete --workspace W --internal-user U
                                                     remove it: its sessions end, its tasks are unassigned
  custom-fields create --workspace W --entity client|company --key K --name N
                       --type T [--options L1,L2]    define a custom field (labels for multiSelect)
  installs create --workspace W --type custom|marketplace|embed|link|manual --name N [--app-id A] [--draft]
                  [--url U]                          install an app (custom and marketplace name theirs; the
                                                     URL of an app's page, or of a link)
  installs publish --workspace W --install I         publish a draft install
  sessions create --workspace W --api-key KEY (--client C [--company X] | --internal-user U)
                  [--base-url URL]                   mint an end-user session token for an app key (baseUrl:
                                                     --base-url, else the address the server recorded)
  sessions revoke --workspace W --token-id T         revoke a session
  outbox list --workspace W [--status queued|sent|failed]
                                                     the e-mail outbox: queued, sent and failed e-mails
                                                     (without SMTP_URL, with their text: sign-in, reset and invite links)
  qa list --workspace W                              QA principals (test people whose sessions are recorded)
  qa create --workspace W (--client C | --internal-user U)
  qa delete --workspace W --principal P
  qa token --workspace W --principal P --api-key KEY [--company X] [--base-url URL]
  qa agent-token --workspace W --api-key-id K [--lifetime SECONDS]
                                                     a QA principal's session token; an agent's bearer token
  webhooks create --workspace W --url U [--events client.created,…] [--description D]
                                                     add a webhook endpoint (its secret shown once)
  webhooks list|delete|enable|disable|rotate-secret --workspace W [--endpoint E]
                                                     manage endpoints
  webhooks deliveries --workspace W [--endpoint E] [--status pending|succeeded|failed]
                                                     the delivery log, every attempt
  webhooks replay --workspace W (--delivery D | --failed-since TIME)
                                                     send a delivery, or every failed one, again
  invoices pay|void --workspace W --invoice I        mark an open invoice paid, or void it
  test-clock show --workspace W                      a sandbox's test clock
  test-clock advance --workspace W (--to TIME | --by-seconds N)
                                                     move it forward: what falls due runs, in order
  import clients --workspace W FILE.csv              create clients from CSV (email, givenName, familyName,
                                                     company, custom field keys); a progress bar on a terminal
  export clients --workspace W [--out FILE]          the workspace's clients as CSV (the import's columns)
  products create --workspace W --name N [--description D]
  products update --workspace W --product P [--name N] [--description D] [--status active|archived]
  prices create --workspace W --product P --amount CENTS [--currency C] [--interval I] [--interval-count N]
  invoice-templates create --workspace W --name N --line-items JSON [--memo M] [--tax-percentage T] [--currency C]
  subscription-templates create … the same, and --interval I [--interval-count N]
                                                     the billing catalog
  task-templates create --workspace W --name N [--description D] [--subtasks JSON]
                                                     a task template (subtasks: [{"name": …, "description": …}])
  forms create --workspace W --name N --fields JSON [--description D] [--allow-multiple-submissions] [--visibility V]
                                                     a form (fields: [{"title": …, "type": "shortAnswer", "isRequired": true}])
  forms update --workspace W --form F [--name N] [--description D] [--fields JSON] [--allow-multiple-submissions | --single-submission] [--visibility V]
                                                     a new version of its fields ([{"formFieldId"?: …, "title": …, "type": …}])
  contract-templates create --workspace W --name N --fields JSON [--file-url URL]
                                                     a contract template (fields: [{"type": "signature", "inputType": "client"}])

\`portal <command> --help\` prints that command's usage. The environment selects the database (DATABASE_URL, default
sqlite:./data/portal.db).`;

/** `portal serve`'s own: the server starts without loading the other commands, nor what they import (src/cli/commands.ts). */
const SERVE_OPTIONS = { seed: { type: 'boolean' }, ...GLOBAL_OPTIONS } as const satisfies Options;

/** A command's options: `--json`, `--help` and its own, nothing else; no word after the command's. */
function parseCommand(argv: string[], name: string, declared: Options, words: number) {
  const options = { ...declared, ...GLOBAL_OPTIONS };
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option' && !Object.hasOwn(options, token.name)) throw new UsageError(`${name} does not take ${token.rawName}`);
  }
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  if (positionals.length > words) throw new UsageError(`${name} takes no argument "${positionals[words]}"`);
  return values as Values<Options>;
}

/** `portal <command> [<sub>] --help`: that command's usage lines, or undefined for an unknown command. */
function commandHelp(commands: typeof import('./commands.js') | undefined, command: string, sub: string | undefined): string | undefined {
  const own: Record<string, string | undefined> = {
    serve: 'portal serve [--seed]',
    migrate: 'portal migrate',
    seed: commands?.seedCommand.usage,
    backup: commands?.backupCommand.usage,
  };
  if (Object.hasOwn(own, command)) return own[command] && `Usage: ${own[command]}`;
  const group = commands && Object.hasOwn(commands.GROUPS, command) ? commands.GROUPS[command] : undefined;
  if (!group) return undefined;
  const declared = sub !== undefined && Object.hasOwn(group, sub) ? [group[sub]] : Object.values(group);
  return `Usage: ${declared.map((c) => c.usage).join('\n       ')}`;
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
  // The usage shown after a usage error: the command's own once the command is known ('' when the message
  // already is it), the global one before (an unknown command).
  let commandUsage: string | undefined;
  try {
    const serving = parseArgs({ args: argv, options: SERVE_OPTIONS, allowPositionals: true, strict: false }).positionals[0] === 'serve';
    const commands = serving ? undefined : await import('./commands.js');
    const { values, positionals } = parseArgs({
      args: argv,
      options: commands?.ANY_OPTION ?? SERVE_OPTIONS,
      allowPositionals: true,
      strict: false,
    });
    json = values.json === true;
    const [command, sub] = positionals;
    if (values.help === true && command) {
      // A command's own usage (a group's commands when its command word is missing); the global list for an unknown one.
      process.stdout.write(`${commandHelp(commands, command, sub) ?? USAGE}\n`);
      return 0;
    }
    if (values.help === true || !command) {
      process.stdout.write(`${USAGE}\n`);
      return command || values.help === true ? 0 : 2;
    }
    switch (command) {
      case 'serve': {
        commandUsage = 'portal serve [--seed]';
        const serveValues = parseCommand(argv, 'portal serve', { seed: SERVE_OPTIONS.seed }, 1) as { seed?: boolean };
        // Imported here: the server's dependencies would slow every other command's start.
        await (await import('../server.js')).startServer(loadConfig(), {
          seedDemo: serveValues.seed === true || process.env.PORTAL_SEED_DEMO === '1',
        });
        return -1; // keep running
      }
      case 'seed': {
        const { seedCommand } = commands as typeof import('./commands.js');
        commandUsage = seedCommand.usage;
        const seedValues = parseCommand(argv, 'portal seed', seedCommand.options, 1);
        await withDatabase((database) => seedCommand.run(seedValues, { database, json }));
        return 0;
      }
      case 'backup': {
        const { backupCommand } = commands as typeof import('./commands.js');
        commandUsage = backupCommand.usage;
        const backupValues = parseCommand(argv, 'portal backup', backupCommand.options, 1);
        await withDatabase((database) => backupCommand.run(backupValues, { database, json }));
        return 0;
      }
      case 'migrate': {
        commandUsage = 'portal migrate';
        parseCommand(argv, 'portal migrate', {}, 1);
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
        const { GROUPS } = commands as typeof import('./commands.js');
        const group = Object.hasOwn(GROUPS, command) ? GROUPS[command] : undefined;
        if (!group) throw new UsageError(`unknown command "${command}"`);
        const declared = sub !== undefined && Object.hasOwn(group, sub) ? group[sub] : undefined;
        commandUsage = declared?.usage ?? '';
        if (!declared) throw new UsageError(groupUsage(group));
        const operands = declared.operands ?? [];
        const commandValues = parseCommand(argv, `portal ${command} ${sub}`, declared.options, 2 + operands.length);
        const given = positionals.slice(2);
        if (given.length < operands.length) throw new UsageError(`${operands[given.length]} is required: ${declared.usage}`);
        await withDatabase((database) => declared.run(commandValues, { database, json, operands: given }));
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
      // Several invalid fields: the message counts them, a line each says what is wrong.
      const problems =
        error instanceof ApiError && Array.isArray(error.data) && error.data.length > 1 ? (error.data as FieldProblem[]) : [];
      const details = problems.map((p) => `  ${p.path} ${p.message}\n`).join('');
      const help =
        commandUsage === undefined
          ? `\n${USAGE}\n`
          : `${commandUsage === '' ? '' : `\nUsage: ${commandUsage}\n`}portal --help lists every command.\n`;
      process.stderr.write(`portal: ${message}\n${details}${usage ? help : ''}`);
    }
    return usage ? 2 : 1;
  }
}
