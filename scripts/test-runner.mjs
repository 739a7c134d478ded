// How `npm test` runs its files (scripts/test.mjs): each file (or one backend of one) is a job, its own
// `node` process running the file's bundle; N jobs run at once (PORTAL_TEST_CONCURRENCY), the longest first, and each
// job's output is printed whole when it ends, so concurrent files never interleave. The budget and how to
// keep it: docs/contributing.md (Test time).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bundleForNode } from './node-bundle.mjs';

/**
 * The files that take longest (by their longest job in a CI run, 2 cores, two at a time, 2026-12-01), in that
 * order: started first, so no long file starts last and runs alone. Every other file follows in path order.
 */
const LONGEST = [
  'test/webhook-crash.test.ts',
  'test/console.test.ts',
  'test/fuzz.test.ts',
  'test/client-csv.test.ts',
  'src/modules/resources/webhooks/webhooks.test.ts',
  'test/portal-browser.test.ts',
  'test/cli-usage.test.ts',
  'src/modules/resources/tasks/tasks.test.ts',
  'test/portal-staff-billing.test.ts',
  'test/portal-states.test.ts',
  'src/modules/resources/files/files.test.ts',
  'test/portal-staff-inbox.test.ts',
  'src/modules/resources/email-outbox/email-outbox.test.ts',
  'test/portal-billing.test.ts',
  'src/modules/resources/credentials/sessions.test.ts',
  'src/modules/resources/files/files-batch.test.ts',
  'test/sign-in-bursts.test.ts',
  'src/modules/resources/messages/message-stream.test.ts',
  'src/modules/resources/forms/forms.test.ts',
  'test/portal-staff-view.test.ts',
  'test/cli.test.ts',
  'test/portal-messages.test.ts',
  'src/modules/resources/custom-fields/custom-fields.test.ts',
  'test/seed.test.ts',
  'src/modules/resources/files/shared-store.test.ts',
  'test/portal-staff-companies.test.ts',
  'test/portal-staff-forms.test.ts',
  'test/paging-budget.test.ts',
  'src/modules/resources/billing/catalog.test.ts',
  'test/sdk.test.ts',
  'test/webhook-wake.test.ts',
  'src/modules/surfaces/qa/qa.test.ts',
  'src/modules/surfaces/sign-in/sign-in.test.ts',
  'src/modules/resources/internal-users/internal-users.test.ts',
  'test/portal-files.test.ts',
  'test/portal-staff-tasks.test.ts',
  'test/sign-in-security.test.ts',
  'test/portal-staff-clients.test.ts',
  'src/modules/resources/billing/invoices.test.ts',
  'src/modules/surfaces/sign-in/app-sessions.test.ts',
  'test/server.test.ts',
  'test/portal-staff-client-tabs.test.ts',
];

/**
 * The longest files run as one job per backend when PostgreSQL is on (PORTAL_TEST_BACKEND; each of these files' tests
 * loops over BACKENDS), side by side.
 */
const BY_BACKEND = new Set([
  'test/cli.test.ts',
  'src/modules/resources/files/files.test.ts',
  'test/fuzz.test.ts',
  'test/paging.test.ts',
  'test/webhook-crash.test.ts',
  // Browser journeys that run on both backends (a `portal serve` process on each).
  'test/portal-staff-view.test.ts',
  'test/portal-staff-forms.test.ts',
  'test/portal-staff-companies.test.ts',
  'test/portal-billing.test.ts',
  'test/portal-staff-client-tabs.test.ts',
  'test/portal-staff-inbox.test.ts',
  'test/portal-staff-tasks.test.ts',
  'test/portal-staff-clients.test.ts',
  'test/portal-staff-team.test.ts',
  'test/portal-staff-billing.test.ts',
]);

/**
 * Files that measure what load does to the service (the acknowledged writes of a killed server, several
 * server processes on one database): each runs with no other job beside it, so their own load is the load.
 */
const ALONE = new Set(['test/crash-durability.test.ts', 'test/scale-out.test.ts']);

/** A job that has run this long is stopped and failed: a hang costs one file, not the whole run. */
const JOB_TIMEOUT_MS = Number(process.env.PORTAL_TEST_JOB_TIMEOUT_MS || 15 * 60_000);

/** The jobs for these files: those that run alone, then the others longest first. */
export function plan(files, postgres) {
  const rank = (file) => {
    const at = LONGEST.indexOf(file.replaceAll('\\', '/'));
    return at < 0 ? LONGEST.length : at;
  };
  // The files that run alone go first, while nothing else has started; then the rest, longest first.
  const alone = (file) => (ALONE.has(file.replaceAll('\\', '/')) ? 0 : 1);
  const ordered = [...files].sort((a, b) => alone(a) - alone(b) || rank(a) - rank(b) || a.localeCompare(b));
  return ordered.flatMap((file) => {
    const path = file.replaceAll('\\', '/');
    const alone = ALONE.has(path);
    if (!postgres || !BY_BACKEND.has(path)) return [{ file, name: file, env: {}, alone }];
    return ['postgres', 'sqlite'].map((backend) => ({ file, name: `${file} [${backend}]`, env: { PORTAL_TEST_BACKEND: backend }, alone }));
  });
}

/** Where the bundled tests go: two levels below the repository, as src/ files are (src/plugins find dist/ from there). */
const BUNDLED_TESTS = join('dist', 'test');

/**
 * Bundles the test files with esbuild as scripts/build.mjs bundles the server (src/ and Kysely and TypeBox in shared
 * chunks; other packages from node_modules): a job then loads a few files as plain JavaScript instead of some 900
 * modules through tsx's loader thread, about 2.5 s of CPU less per job (docs/contributing.md, Test time).
 * Type-checking is `npm run typecheck`.
 */
export async function bundleTests(files) {
  await bundleForNode({
    entryPoints: files,
    outdir: BUNDLED_TESTS,
    outbase: '.',
    // Bundled in as well: the official SDK, whose ES modules import directories (`./codegen/api`), which Node's own
    // resolver refuses (esbuild, like tsx, resolves them); it imports nothing but `crypto`.
    bundled: ['kysely', 'typebox', '@assembly-js/node-sdk'],
  });
}

/** A test file's bundle (bundleTests). */
const bundleOf = (file) => join(BUNDLED_TESTS, file.replace(/\.ts$/, '.js'));

function run(job, env) {
  const started = Date.now();
  return new Promise((resolve) => {
    // The file itself, run by node:test in this process (no --test: no second process); stacks through the source maps.
    const child = spawn(process.execPath, ['--enable-source-maps', '--test-reporter=spec', bundleOf(job.file)], {
      env: { ...env, ...job.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: a timeout stops the servers it started too
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, JOB_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const count = (label) => Number(output.match(new RegExp(`^\\S* ?${label} (\\d+)$`, 'm'))?.[1] ?? 0);
      const result = {
        job,
        ms: Date.now() - started,
        ok: code === 0 && !timedOut,
        timedOut,
        output,
        tests: count('tests'),
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped'),
      };
      const status = result.ok ? 'ok' : timedOut ? `TIMED OUT after ${JOB_TIMEOUT_MS / 1000} s` : `FAILED (exit ${code})`;
      process.stdout.write(`\n=== ${job.name}\n${output}=== ${job.name}: ${status} in ${(result.ms / 1000).toFixed(1)} s\n`);
      resolve(result);
    });
  });
}

/** Runs the jobs `concurrency` at a time, in order, in `env`; an `alone` job waits for the others to end and runs by itself. */
export async function runJobs(jobs, concurrency, env) {
  const queue = [...jobs];
  const results = [];
  const running = new Set();
  let aloneRunning = false;
  while (queue.length > 0 || running.size > 0) {
    const next = queue[0];
    const canStart = next !== undefined && !aloneRunning && (next.alone ? running.size === 0 : running.size < concurrency);
    if (canStart) {
      queue.shift();
      aloneRunning = next.alone;
      const promise = run(next, env).then((result) => {
        results.push(result);
        running.delete(promise);
        if (next.alone) aloneRunning = false;
      });
      running.add(promise);
      continue;
    }
    await Promise.race(running);
  }
  return results;
}

/** What of a failed job's output is printed again at the end: its failing tests (or, if it crashed, its last lines). */
const FAILURE_CHARS = 8_000;

/** A failed job's failing tests, from the spec reporter's closing list; the output's end if it has none (a crash). */
function failureOf(result) {
  const at = result.output.lastIndexOf('✖ failing tests:');
  const text = (at >= 0 ? result.output.slice(at) : result.output).trimEnd();
  return text.length > FAILURE_CHARS ? `…${text.slice(-FAILURE_CHARS)}` : text;
}

/**
 * Prints the failed jobs' failures again (the end of a long log is what a CI page keeps), the slowest jobs and the
 * totals; the exit code (1 if any job failed).
 */
export function report(results) {
  const sum = (key) => results.reduce((total, r) => total + r[key], 0);
  const failed = results.filter((r) => !r.ok);
  for (const r of failed) console.log(`\n=== failed: ${r.job.name}\n${failureOf(r)}`);
  console.log('\nSlowest jobs:');
  for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 12)) {
    console.log(`  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.job.name}`);
  }
  console.log(
    `\n${results.length} jobs: tests ${sum('tests')}, pass ${sum('pass')}, fail ${sum('fail')}, skipped ${sum('skipped')}; ` +
      `${failed.length} job(s) failed${failed.length ? `: ${failed.map((r) => r.job.name).join(', ')}` : ''}`,
  );
  return failed.length > 0 ? 1 : 0;
}
