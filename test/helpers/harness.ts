import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type BuildOptions, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import type { Clock } from '../../src/lib/clock.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';

export type Backend = 'sqlite' | 'postgres';

const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;

/** SQLite always; PostgreSQL when `npm test` found it answering. */
export const BACKENDS: Backend[] = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** A settable clock: tests move time instead of sleeping. */
export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-01-15T12:00:00.000Z')) {}
  now() {
    return this.ms;
  }
  advance(ms: number) {
    this.ms += ms;
  }
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
    await dropper.query(`drop schema if exists ${schema} cascade`);
    await dropper.end();
  });
  const url = new URL(postgresUrl!);
  url.searchParams.set('schema', schema);
  return url.toString();
}

export interface Harness {
  app: FastifyInstance;
  clock: TestClock;
  databaseUrl: string;
  /** A workspace with its first (workspace-kind) key. */
  workspace(name?: string, dailyQuota?: number): Promise<{ workspaceId: string; apiKeyId: string; apiKey: string }>;
  appKey(workspaceId: string, appId: string): Promise<{ apiKeyId: string; apiKey: string }>;
  /** `app.inject` with the key in X-API-KEY. */
  as(apiKey: string, options: InjectOptions): Promise<LightMyRequestResponse>;
}

/** Builds the app on a fresh database of the given backend; closed after the test. */
export async function harness(t: TestContext, backend: Backend, opts: { clock?: TestClock; database?: Database; extraV1Routes?: BuildOptions['extraV1Routes']; logStream?: NodeJS.WritableStream; logLevel?: string } = {}): Promise<Harness> {
  const databaseUrl = await freshDatabaseUrl(t, backend);
  const clock = opts.clock ?? new TestClock();
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: opts.logLevel ?? 'silent' });
  const { clock: _c, logLevel: _l, ...buildOptions } = opts;
  const app = await buildApp(config, { clock, ...buildOptions });
  t.after(() => app.close());
  return {
    app,
    clock,
    databaseUrl,
    workspace: (name = 'Acme', dailyQuota) => createWorkspace(app.ctx.db, { name, dailyQuota }, clock),
    appKey: (workspaceId, appId) => createApiKey(app.ctx.db, workspaceId, { kind: 'app', appId }, clock),
    as: (apiKey, options) => app.inject({ ...options, headers: { 'x-api-key': apiKey, ...(options.headers ?? {}) } }),
  };
}

export { openDatabase };
