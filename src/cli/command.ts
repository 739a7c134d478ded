import type { Database } from '../db/database.js';
import type { Caller } from '../lib/caller.js';
import { systemClock } from '../lib/clock.js';
import { operatorCaller } from '../modules/resources/workspaces/index.js';

/**
 * How a command group declares its sub-commands: each one its usage line and its options (for
 * `node:util` parseArgs, strict), so an option a command does not take is a usage error. `--json` and
 * `--help` are global (src/cli/main.ts) and never declared here.
 */
export type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** `--json` and `--help`: every command takes them. */
export const GLOBAL_OPTIONS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const satisfies Options;

/** The parsed values of a command's options: strings (or booleans), absent when not given. */
export type Values<O extends Options> = { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };

interface CommandContext {
  database: Database;
  /** `--json`: print exactly one JSON object. */
  json: boolean;
  /** The words given for the command's `operands`, in order (each present). */
  operands?: readonly string[];
}

export interface Command<O extends Options = Options> {
  /** The usage line, e.g. `portal keys create --workspace W [--app APP_ID]`. */
  usage: string;
  options: O;
  /** Words the command takes after its name, each required (`portal import clients … FILE.csv`: `['FILE.csv']`). */
  operands?: readonly string[];
  run(values: Values<O>, context: CommandContext): Promise<void>;
}

/** A command group (`portal keys …`): its sub-commands by name. */
export type CommandGroup = Record<string, Command>;

/** Declares a command, typing `run`'s values from its options. */
export function command<const O extends Options>(declared: Command<O>): Command<O> {
  return declared;
}

/** `usage: portal keys create … | portal keys revoke …`: every sub-command of a group. */
export function groupUsage(group: CommandGroup): string {
  return `usage: ${Object.values(group)
    .map((c) => c.usage)
    .join(' | ')}`;
}

/** Wrong command line (unknown command or option, missing or malformed option): exit 2. */
export class UsageError extends Error {}

export function requireOption(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

/** The input fields given, and only those: an option not given is no field (not one set to `undefined`). */
export function given<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** `--limit N --next-token T`: one page of a list, as the admin route's query takes it. */
export const PAGE_OPTIONS = { limit: { type: 'string' }, 'next-token': { type: 'string' } } as const;

/** A list's query from its filters and the page options given (absent ones left out). */
export function listQueryOf(values: { limit?: string; 'next-token'?: string }, filters: Record<string, string | undefined>) {
  return given({ ...filters, limit: values.limit === undefined ? undefined : Number(values.limit), nextToken: values['next-token'] });
}

/**
 * `--workspace`, which must name a workspace: a malformed id finds nothing and is a 404 like an unknown one.
 * Checked here, once, for every command on a workspace (as the admin plugin does for /admin/workspaces/:workspaceId): the services trust it.
 */
export async function requireWorkspace(database: Database, values: { workspace?: string }): Promise<Caller> {
  return operatorCaller(database, requireOption(values, 'workspace'), systemClock.now());
}
