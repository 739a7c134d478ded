import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import { type BuildOptions, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { TEST_ADMIN_TOKEN, createAppKey, createTestWorkspace } from './factories.js';
import { present } from './present.js';
import { type FileStoreKind, fileStoreEnv } from './s3.js';
import { type Harness, NOON, TestClock } from './types.js';

export { type Harness, NOON, TestClock };

export { TEST_ADMIN_TOKEN };

export type Backend = 'sqlite' | 'postgres';

const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;

/**
 * SQLite always; PostgreSQL when `npm test` found it answering. PORTAL_TEST_BACKEND names one of them: the runner
 * (scripts/test.mjs) runs its longest files as two jobs, one per backend, so they share the machine's two slots.
 */
export const BACKENDS: Backend[] = (postgresUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)).filter(
  (backend) => !process.env.PORTAL_TEST_BACKEND || backend === process.env.PORTAL_TEST_BACKEND,
);

/** A fresh, empty database (not migrated): in-memory SQLite, or its own PostgreSQL schema dropped after the test. */
export async function freshDatabaseUrl(t: TestContext, backend: Backend, opts: { sqliteFile?: boolean } = {}): Promise<string> {
  if (backend === 'sqlite') {
    if (!opts.sqliteFile) return 'sqlite::memory:';
    const dir = mkdtempSync(join(tmpdir(), 'portal-test-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite:${join(dir, 'portal.db')}`;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await onPostgres((client) => client.query(`create schema ${schema}`));
  t.after(() =>
    onPostgres(async (client) => {
      // An app of the test may still be writing (its limit store flushes on close): a deadlock is retried.
      for (let attempt = 1; ; attempt++) {
        try {
          return void (await client.query(`drop schema if exists ${schema} cascade`));
        } catch (error) {
          if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
        }
      }
    }),
  );
  const url = new URL(present(postgresUrl, 'PORTAL_TEST_POSTGRES_URL'));
  url.searchParams.set('schema', schema);
  return url.toString();
}

/**
 * A fresh database with every migration applied and nothing else: in-memory SQLite (migrated by the app as it
 * starts), or on PostgreSQL its own database cloned from a migrated template (`CREATE DATABASE … TEMPLATE`, a tenth
 * of what migrating a new schema costs), dropped after the test. The template holds no server secrets and no
 * database id, so each clone's first start makes its own, as a new database's does.
 */
export async function migratedDatabaseUrl(t: TestContext, backend: Backend): Promise<string> {
  const database = await migratedDatabase(backend);
  t.after(database.drop);
  return database.url;
}

/**
 * migratedDatabaseUrl's database and how to drop it: after the apps on it have closed, so none is cut off mid-write
 * (a server process of a whole test file drops it when it stops: test/helpers/portal-pages.ts).
 */
export async function migratedDatabase(backend: Backend): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend === 'sqlite') return { url: 'sqlite::memory:', drop: async () => {} };
  postgresTemplate ??= migratedTemplate();
  const template = await postgresTemplate;
  const name = `t_${randomBytes(6).toString('hex')}`;
  await onPostgres(async (client) => {
    await client.query(`create database ${name} template ${template}`);
    // Its commits do not wait for the WAL's flush to disk: a test database need not outlive a crash of the machine
    // (a killed server's acknowledged writes are still PostgreSQL's), and every write of a test is faster.
    await client.query(`alter database ${name} set synchronous_commit = off`);
  });
  return {
    url: databaseUrlOf(name),
    drop: () => onPostgres(async (client) => void (await client.query(`drop database if exists ${name} with (force)`))),
  };
}

let postgresTemplate: Promise<string> | undefined;

let sqliteImage: Promise<Buffer> | undefined;

/**
 * A SQLite database file with every migration applied and nothing else (no server secrets, no database id, as the
 * PostgreSQL template), made once per test process: each in-memory database opened from it skips the migrations
 * (most of a harness's start on SQLite). Written in rollback-journal mode (bytes 18 and 19 of the header), as an
 * in-memory database is.
 */
function migratedSqliteImage(): Promise<Buffer> {
  sqliteImage ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-image-'));
    try {
      const file = join(dir, 'migrated.db');
      await migrateBare(`sqlite:${file}`);
      const image = readFileSync(file);
      image[18] = 1;
      image[19] = 1;
      return image;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return sqliteImage;
}

/**
 * The template database of these migrations, named after their source so that every test process of one checkout
 * shares it and a changed migration makes another; made under an advisory lock, once per machine, and kept.
 */
async function migratedTemplate(): Promise<string> {
  const dir = join('src', 'db', 'migrations'); // from the repository, where tests run (the bundled tests too)
  const source = createHash('sha256');
  for (const file of readdirSync(dir).sort()) source.update(file).update(readFileSync(join(dir, file)));
  const name = `portal_test_template_${source.digest('hex').slice(0, 16)}`;
  await onPostgres(async (client) => {
    await client.query('select pg_advisory_lock(hashtext($1))', [name]);
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return;
    // Built under another name and renamed when whole: a process killed half-way leaves no template behind.
    const building = `${name}_building`;
    await client.query(`drop database if exists ${building} with (force)`);
    await client.query(`create database ${building}`);
    await migrateBare(databaseUrlOf(building));
    await client.query(`alter database ${building} rename to ${name}`);
  });
  return name;
}

/** Every migration applied to the database at `url`, and nothing else: no server secrets, no database id. */
async function migrateBare(url: string): Promise<void> {
  const database = openDatabase(url);
  try {
    await migrateToLatest(database);
    await database.db.deleteFrom('server_secrets').execute();
    await database.db.deleteFrom('server_settings').where('name', '=', 'database-id').execute();
  } finally {
    await database.close();
  }
}

async function onPostgres<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

function databaseUrlOf(name: string): string {
  const url = new URL(present(postgresUrl, 'PORTAL_TEST_POSTGRES_URL'));
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Burst buckets so large that tests making many requests at one instant of the test clock are never
 * limited (the headers are still there); the limit tests set the contract's values through `env`.
 */
const ROOMY_LIMITS = {
  RATE_LIMIT_GET_CAPACITY: '1000000',
  RATE_LIMIT_GET_REFILL: '1000000',
  RATE_LIMIT_WRITE_CAPACITY: '1000000',
  RATE_LIMIT_WRITE_REFILL: '1000000',
};

export interface HarnessOptions extends Omit<BuildOptions, 'clock'> {
  clock?: TestClock;
  logLevel?: string;
  /** Extra environment for loadConfig (limits, …). */
  env?: Record<string, string>;
  /** Reuse this database URL instead of a fresh one (restart tests). */
  databaseUrl?: string;
  /** Where files' content goes (default: a directory of the test's own). */
  fileStore?: FileStoreKind;
}

/**
 * Builds the app on a fresh migrated database of the given backend (or `databaseUrl`); closed after the test. On
 * SQLite the fresh database is in memory, opened from the migrated image (`migratedSqliteImage`).
 */
export async function harness(t: TestContext, backend: Backend, opts: HarnessOptions = {}): Promise<Harness> {
  const fresh = opts.databaseUrl === undefined ? await migratedDatabase(backend) : undefined;
  const databaseUrl = opts.databaseUrl ?? present(fresh, 'a fresh database').url;
  const imaged =
    backend === 'sqlite' && opts.databaseUrl === undefined && opts.database === undefined
      ? openDatabase(databaseUrl, { image: await migratedSqliteImage() })
      : undefined;
  const clock = opts.clock ?? new TestClock();
  // Files' content in a directory of this test's own, removed after it.
  const filesDir = mkdtempSync(join(tmpdir(), 'portal-files-'));
  t.after(() => rmSync(filesDir, { recursive: true, force: true }));
  const config = loadConfig({
    ...ROOMY_LIMITS,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: opts.logLevel ?? 'silent',
    FILES_DIR: filesDir,
    ...(await fileStoreEnv(opts.fileStore ?? 'local')),
    ...opts.env,
  });
  const { clock: _c, logLevel: _l, env: _e, databaseUrl: _d, fileStore: _f, ...buildOptions } = opts;
  const app = await buildApp(config, { clock, ...buildOptions, ...(imaged ? { database: imaged } : {}) });
  t.after(async () => {
    await app.close();
    await imaged?.close();
    await fresh?.drop();
  });
  return {
    app,
    clock,
    databaseUrl,
    adminToken: config.adminToken,
    workspace: (name = 'Acme', dailyQuota, sandbox) => createTestWorkspace({ app, clock }, name, dailyQuota, sandbox),
    appKey: (workspaceId, appId) => createAppKey({ app, clock }, workspaceId, appId),
    as: (apiKey, options) => app.inject({ ...options, headers: { 'x-api-key': apiKey, ...(options.headers ?? {}) } }),
  };
}

export { openDatabase };

/** A harness with the admin surface on (PORTAL_ADMIN_TOKEN = TEST_ADMIN_TOKEN), so sessions can be minted. */
export function adminHarness(t: TestContext, backend: Backend, opts: HarnessOptions = {}): Promise<Harness> {
  return harness(t, backend, { ...opts, env: { PORTAL_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...opts.env } });
}

/** A harness with one workspace, and `call` making requests with its key. */
export async function workspaceHarness(t: TestContext, backend: Backend, opts: HarnessOptions = {}) {
  const h = await harness(t, backend, opts);
  const ws = await h.workspace();
  const call = (method: string, url: string, payload?: unknown) =>
    h.as(ws.apiKey, {
      method: method as InjectOptions['method'],
      url,
      ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}),
    });
  return { h, ws, call };
}

/**
 * Two app instances (as two server processes) sharing one fresh database and one test clock, with the admin
 * surface on: what a revocation must reach at once. `env` adds to both's environment (REDIS_URL: their event bus is
 * Redis). Both closed after the test.
 */
export async function twoServersOnOneDatabase(t: TestContext, backend: Backend, env: Record<string, string> = {}) {
  const clock = new TestClock();
  const fresh = await migratedDatabase(backend);
  const database = openDatabase(fresh.url);
  const config = loadConfig({ DATABASE_URL: fresh.url, LOG_LEVEL: 'silent', PORTAL_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env });
  const [one, two] = [await buildApp(config, { database, clock }), await buildApp(config, { database, clock })];
  t.after(async () => {
    await one.close();
    await two.close();
    await database.close();
    await fresh.drop();
  });
  return { one, two, clock, database };
}
