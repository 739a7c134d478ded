#!/usr/bin/env node
// `npm test`: every *.test.ts under src/ and test/, through tsx and node:test. The API suites are
// parametrised by backend: SQLite always, PostgreSQL when it answers. Without PostgreSQL the run says
// so plainly; PORTAL_TEST_REQUIRE_POSTGRES=1 (set by CI) turns that skip into a failure.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const pgUrl = process.env.PORTAL_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
const requirePostgres = process.env.PORTAL_TEST_REQUIRE_POSTGRES === '1';

async function postgresAnswers(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    return error.message;
  } finally {
    await client.end().catch(() => {});
  }
}

const filter = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap((dir) => readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();

const env = { ...process.env };
const answer = await postgresAnswers(pgUrl);
if (answer === true) {
  env.PORTAL_TEST_POSTGRES_URL = pgUrl;
  console.log(`Backends: sqlite, postgres (${pgUrl.replace(/\/\/[^@]*@/, '//')})`);
} else {
  delete env.PORTAL_TEST_POSTGRES_URL;
  console.log(`\n*** PostgreSQL run SKIPPED: ${pgUrl} did not answer (${answer}). Only SQLite was tested. ***\n`);
  if (requirePostgres) {
    console.error('PORTAL_TEST_REQUIRE_POSTGRES=1: a skipped PostgreSQL run is a failure.');
    process.exit(1);
  }
}

// The CLI and server tests run `bin/portal.js`, which starts faster from a fresh dist/.
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...files], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
