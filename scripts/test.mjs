#!/usr/bin/env node
// `npm test`: every *.test.ts under src/ and test/, bundled by esbuild (scripts/test-runner.mjs) and run by
// node:test. The API suites are parametrised by backend: SQLite always, PostgreSQL when it answers. Without
// PostgreSQL the run says so plainly; PORTAL_TEST_REQUIRE_POSTGRES=1 (set by CI) turns that skip into a failure.
// Likewise Redis (the shared limit store's tests) and PORTAL_TEST_REQUIRE_REDIS=1.
// PORTAL_TEST_SQLITE_ONLY=1 runs SQLite alone on purpose (.ci/run's bounded runs on the newer Node runtimes).
// PORTAL_TEST_CONCURRENCY=N runs N test files at once (default 1); how: scripts/test-runner.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { bundleTests, plan, report, runJobs } from './test-runner.mjs';

const pgUrl = process.env.PORTAL_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
const requirePostgres = process.env.PORTAL_TEST_REQUIRE_POSTGRES === '1';
const redisUrl = process.env.PORTAL_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const requireRedis = process.env.PORTAL_TEST_REQUIRE_REDIS === '1';

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

async function redisAnswers(url) {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let cause; // the socket's error says more than the rejection ("Connection is closed.")
  client.on('error', (error) => (cause ??= error));
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    return (cause ?? error).message;
  } finally {
    client.disconnect();
  }
}

const filter = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap((dir) => readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();

if (files.length === 0) {
  console.error(`No test file matches ${filter.join(', ')}.`);
  process.exit(1);
}

// Every page a server writes as bytes is compared with fast-json-stringify's output (src/lib/json-bytes.ts).
const env = { ...process.env, PORTAL_CHECK_JSON_BYTES: '1' };
const sqliteOnly = process.env.PORTAL_TEST_SQLITE_ONLY === '1';
const answer = sqliteOnly ? 'PORTAL_TEST_SQLITE_ONLY=1' : await postgresAnswers(pgUrl);
if (sqliteOnly) {
  delete env.PORTAL_TEST_POSTGRES_URL;
  console.log('Backends: sqlite only (PORTAL_TEST_SQLITE_ONLY=1)');
} else if (answer === true) {
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

const redisAnswer = await redisAnswers(redisUrl);
if (redisAnswer === true) {
  env.PORTAL_TEST_REDIS_URL = redisUrl;
  console.log(`Redis: ${redisUrl.replace(/\/\/[^@]*@/, '//')}`);
} else {
  delete env.PORTAL_TEST_REDIS_URL;
  console.log(`\n*** Redis tests SKIPPED: ${redisUrl} did not answer (${redisAnswer}). ***\n`);
  if (requireRedis) {
    console.error('PORTAL_TEST_REQUIRE_REDIS=1: skipped Redis tests are a failure.');
    process.exit(1);
  }
}

// The browser tests (the admin console's, the portal's pages') drive Chromium (PORTAL_TEST_CHROMIUM, default Debian's /usr/bin/chromium).
// Without it they are left out, said plainly; PORTAL_TEST_REQUIRE_BROWSER=1 (set by CI) makes that a failure.
const chromium = process.env.PORTAL_TEST_CHROMIUM || '/usr/bin/chromium';
const browserTests = files.filter((f) => f.endsWith('console.test.ts') || f.endsWith('-browser.test.ts'));
if (browserTests.length > 0 && !existsSync(chromium)) {
  console.log(`\n*** Browser tests SKIPPED: no Chromium at ${chromium} (apt-get install chromium). ***\n`);
  if (process.env.PORTAL_TEST_REQUIRE_BROWSER === '1') {
    console.error('PORTAL_TEST_REQUIRE_BROWSER=1: skipped browser tests are a failure.');
    process.exit(1);
  }
  files.splice(0, files.length, ...files.filter((f) => !browserTests.includes(f)));
}

// The CLI and server tests run `bin/portal.js`, which starts faster from a fresh dist/.
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
await bundleTests(files);

const concurrency = Math.max(1, Number(process.env.PORTAL_TEST_CONCURRENCY || 1));
const jobs = plan(files, env.PORTAL_TEST_POSTGRES_URL !== undefined);
console.log(`Node ${process.version}, ${files.length} test files as ${jobs.length} jobs, ${concurrency} at a time`);
const results = await runJobs(jobs, concurrency, env);
process.exit(report(results));
