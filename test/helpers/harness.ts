import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import { type BuildOptions, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
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

/**
 * Whether the `index`-th of a file's generated tests is in this job's part (PORTAL_TEST_PART `k/n`: the runner splits
 * its longest table-driven file into n jobs per backend); every test is in some part, once.
 */
export function inThisPart(index: number): boolean {
  const [k, n] = (process.env.PORTAL_TEST_PART ?? '1/1').split('/').map(Number);
  return index % n === k - 1;
}

/** A fresh, empty database: in-memory SQLite, or its own PostgreSQL schema dropped after the test. */
export async function freshDatabaseUrl(t: TestContext, backend: Backend, opts: { sqliteFile?: boolean } = {}): Promise<string> {
  if (backend === 'sqlite') {
    if (!opts.sqliteFile) return 'sqlite::memory:';
    const dir = mkdtempSync(join(tmpdir(), 'portal-test-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite:${join(dir, 'portal.db')}`;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  t.after(async () => {
    const dropper = new pg.Client({ connectionString: postgresUrl });
    await dropper.connect();
    // An app of the test may still be writing (its limit store flushes on close): a deadlock is retried.
    for (let attempt = 1; ; attempt++) {
      try {
        await dropper.query(`drop schema if exists ${schema} cascade`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
      }
    }
    await dropper.end();
  });
  const url = new URL(present(postgresUrl, 'PORTAL_TEST_POSTGRES_URL'));
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** Builds the app on a fresh database of the given backend; closed after the test. */
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

export async function harness(t: TestContext, backend: Backend, opts: HarnessOptions = {}): Promise<Harness> {
  const databaseUrl = opts.databaseUrl ?? (await freshDatabaseUrl(t, backend));
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
  const app = await buildApp(config, { clock, ...buildOptions });
  t.after(() => app.close());
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
 * surface on: what a revocation must reach at once. Both closed after the test.
 */
export async function twoServersOnOneDatabase(t: TestContext, backend: Backend) {
  const clock = new TestClock();
  const url = await freshDatabaseUrl(t, backend);
  const database = openDatabase(url);
  t.after(() => database.close());
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', PORTAL_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  const [one, two] = [await buildApp(config, { database, clock }), await buildApp(config, { database, clock })];
  t.after(() => one.close());
  t.after(() => two.close());
  return { one, two, clock, database };
}
