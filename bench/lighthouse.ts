// `npm run bench:lighthouse [-- --runs N] [-- --desktop] [-- --page NAME]`: Lighthouse's performance, accessibility and best-practices
// scores of the signed-in client portal's pages, against a budget (see bench/README.md). A recording, not a test:
// Lighthouse is heavy and rarely run, so it is not in package.json: it is installed into bench/.tools (git-ignored)
// the first time, and drives Debian's chromium.
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { type Child, freePort, startChild, stopChild, waitForHttp } from './children.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every category must score at least this (0–100) on every recorded page. */
const BUDGET = 95;
const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
type Category = (typeof CATEGORIES)[number];

const LIGHTHOUSE_MAJOR = 12;
const TOOLS = join(ROOT, 'bench', '.tools');
const LIGHTHOUSE = join(TOOLS, 'node_modules', 'lighthouse');
const CHROMIUM = process.env.PORTAL_TEST_CHROMIUM || '/usr/bin/chromium';
/** Headless, as root in a container (no sandbox), and nothing of its own on the network while it is measured. */
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const RESULTS = join(ROOT, 'bench', 'results', 'lighthouse');
const ADMIN_TOKEN = 'bench-lighthouse-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';

// Every wait is bounded.
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const BUILD_TIMEOUT_MS = 3 * 60_000;
const SERVER_START_MS = 30_000;
const REQUEST_TIMEOUT_MS = 15_000;
const LIGHTHOUSE_RUN_MS = 3 * 60_000;
/** Lighthouse's own bound on a page's load (its default is 45 s). */
const MAX_WAIT_FOR_LOAD_MS = 45_000;

const USAGE = `usage: npm run bench:lighthouse [-- --runs N] [-- --desktop] [-- --page NAME ...]

  --runs N     Lighthouse runs per page (default 3): the median run by performance score is the one reported
  --desktop    Lighthouse's desktop preset instead of its default (a mobile device, simulated throttling)
  --page NAME  only this page (home, messages, conversation, invoice, staff-clients, staff-client, staff-inbox,
               staff-tasks); may be given more than once

Lighthouse ${LIGHTHOUSE_MAJOR} is installed into bench/.tools on first use; chromium: ${CHROMIUM} (PORTAL_TEST_CHROMIUM names another).
Reports: bench/results/lighthouse/. Exit 1 when any score is below ${BUDGET}.`;

class UsageError extends Error {}

interface Options {
  runs: number;
  desktop: boolean;
  /** The pages measured, by name (none: all). */
  pages?: string[];
}

function parseOptions(argv: string[]): Options | 'help' {
  let values: { runs?: string; desktop?: boolean; page?: string[]; help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      options: {
        runs: { type: 'string' },
        desktop: { type: 'boolean' },
        page: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const runs = values.runs === undefined ? 3 : /^\d+$/.test(values.runs) ? Number(values.runs) : Number.NaN;
  if (!Number.isInteger(runs) || runs < 1 || runs > 9) throw new UsageError(`--runs must be 1 to 9 (got "${values.runs}")`);
  return { runs, desktop: values.desktop === true, pages: values.page };
}

function log(line: string) {
  process.stderr.write(`lighthouse: ${line}\n`);
}

/** The commands running now (npm, the build, Lighthouse), stopped with the server if the script is interrupted. */
const commands = new Set<ChildProcess>();
/** Set on SIGINT or SIGTERM: nothing new is started. */
let interrupted = false;

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs: number; what: string }): Promise<string> {
  if (interrupted) return Promise.reject(new Error(`${options.what}: interrupted`));
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      // SIGINT: the Lighthouse CLI then closes the chromium it launched.
      { cwd: ROOT, env: options.env ?? process.env, timeout: options.timeoutMs, killSignal: 'SIGINT', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        commands.delete(child);
        const why = interrupted ? 'interrupted' : error?.killed ? 'timed out' : error?.message;
        if (error) reject(new Error(`${options.what} failed (${why}):\n${stderr.slice(-4000)}`));
        else resolve(stdout);
      },
    );
    commands.add(child);
  });
}

/** SIGINT (Lighthouse closes its chromium), then SIGKILL after 5 s; resolves once it is gone (10 s at most). */
function stopCommand(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    const giveUp = setTimeout(done, 10_000);
    function done() {
      clearTimeout(kill);
      clearTimeout(giveUp);
      resolve();
    }
    child.once('exit', done);
    child.kill('SIGINT');
  });
}

/** Lighthouse 12 in bench/.tools, installed there when it is missing or of another major version. */
async function ensureLighthouse(): Promise<string> {
  const installed = (): string | undefined => {
    try {
      const { version } = JSON.parse(readFileSync(join(LIGHTHOUSE, 'package.json'), 'utf8')) as { version: string };
      return version.startsWith(`${LIGHTHOUSE_MAJOR}.`) ? version : undefined;
    } catch {
      return undefined;
    }
  };
  if (!installed()) {
    log(`installing lighthouse@${LIGHTHOUSE_MAJOR} into bench/.tools (once) …`);
    await mkdir(TOOLS, { recursive: true });
    await run('npm', ['install', '--prefix', TOOLS, '--no-save', '--no-audit', '--no-fund', `lighthouse@${LIGHTHOUSE_MAJOR}`], {
      timeoutMs: INSTALL_TIMEOUT_MS,
      what: 'npm install lighthouse',
    });
  }
  const version = installed();
  if (!version) throw new Error(`lighthouse@${LIGHTHOUSE_MAJOR} is not in ${LIGHTHOUSE} after npm install`);
  return version;
}

/** The newest modification time of a file under `dir` (node_modules left out). */
function newestUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.parentPath.includes('node_modules')) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** `node scripts/build.mjs` when the server or the portal's pages are missing from dist/ or older than their sources. */
async function ensureBuilt() {
  const built = [join(ROOT, 'dist', 'cli', 'main.js'), join(ROOT, 'dist', 'portal', 'index.html')];
  const builtAt = Math.min(...built.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)));
  const sources = Math.max(
    ...['src', join('web', 'kit'), join('web', 'portal')].map((dir) => newestUnder(join(ROOT, dir))),
    ...['package.json', join('scripts', 'build.mjs')].map((file) => statSync(join(ROOT, file)).mtimeMs),
  );
  if (builtAt >= sources) return;
  log('building (node scripts/build.mjs) …');
  await run(process.execPath, ['scripts/build.mjs'], { timeoutMs: BUILD_TIMEOUT_MS, what: 'node scripts/build.mjs' });
}

/** A JSON request to the server, bounded; fails on anything but a 2xx. */
async function call<T>(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
}

interface Page {
  name: string;
  /** Under /portal/{workspaceId}. */
  path: string;
  /** Whose session the page is read with: the client's (Ada) or the member of staff's (Grace, an admin). */
  as: 'client' | 'staff';
}

/**
 * A sandbox workspace with a client and a member of staff signed in (their session cookies), and something on each
 * page: a conversation, tasks, an open invoice, a contract to sign. Returns the workspace, the cookies and the pages to
 * record: the client's, and the staff's (the clients, a client, the inbox, the task board).
 */
async function signedInPortal(base: string): Promise<{ workspaceId: string; cookies: Record<Page['as'], string>; pages: Page[] }> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const { workspaceId, apiKey } = (
    await call<{ workspaceId: string; apiKey: string }>(base, 'POST', '/admin/workspaces', admin, { name: 'Acme', sandbox: true })
  ).body;
  const v1 = async <T = { id: string }>(method: string, path: string, body?: unknown) =>
    (await call<T>(base, method, path, { 'x-api-key': apiKey }, body)).body;
  const onAdmin = async <T = { id: string }>(path: string, body: unknown) =>
    (await call<T>(base, 'POST', `/admin/workspaces/${workspaceId}${path}`, admin, body)).body;

  // The client accepts the invite as the portal's invite page does: the token from the link's fragment, a password.
  const client = await v1<{ id: string; inviteUrl: string }>('POST', '/v1/clients?sendInvite=true', {
    email: 'ada@client.test',
    givenName: 'Ada',
    familyName: 'Lovelace',
  });
  const token = new URL(client.inviteUrl).hash.slice(1);
  const accepted = await call(
    base,
    'POST',
    `/portal/${workspaceId}/api/invites/accept`,
    { 'x-portal-request': '1', origin: base },
    { token, password: PASSWORD },
  );
  const session = accepted.headers.getSetCookie().find((cookie) => cookie.startsWith('portal_session='));
  if (!session) throw new Error('accepting the invite set no portal_session cookie');
  const cookie = session.split(';')[0];
  await call(base, 'GET', `/portal/${workspaceId}/api/session`, { cookie }); // the cookie signs in

  const staff = await call<{ id: string }>(base, 'POST', `/admin/workspaces/${workspaceId}/internal-users`, admin, {
    email: 'grace@acme.test',
    givenName: 'Grace',
    familyName: 'Hopper',
  });
  const channel = await v1('POST', '/v1/message-channels', { membershipType: 'individual', clientId: client.id });
  const conversation = [
    [client.id, 'Hello, is my order on its way?\nIt was number 42.'],
    [staff.body.id, 'It left this morning: you should have it on Thursday.'],
    [client.id, 'Thank you!'],
    [staff.body.id, 'The invoice for January is in Billing whenever you are ready.'],
  ];
  for (const [senderId, text] of conversation) await v1('POST', '/v1/messages', { channelId: channel.id, senderId, text });

  const w9 = await v1('POST', '/v1/tasks', {
    name: 'Send your W-9',
    description: 'The signed form, for our records.\nA scan or a photo is fine.',
    clientId: client.id,
    dueDate: new Date(Date.now() + 14 * 86_400_000).toISOString(),
  });
  await v1('POST', '/v1/tasks', { name: 'Find last year’s form', parentTaskId: w9.id, clientId: client.id });
  await v1('POST', '/v1/tasks', { name: 'Book the kick-off call', clientId: client.id });

  const invoice = await v1('POST', '/v1/invoices', {
    clientId: client.id,
    lineItems: [
      { amount: 120_000, quantity: 1, description: 'Design retainer, January' },
      { amount: 2_500, quantity: 2, description: 'Extra revisions' },
    ],
    taxPercentage: 10,
    daysUntilDue: 14,
    memo: 'Thank you for your business.',
  });

  const template = await onAdmin('/contract-templates', {
    name: 'Services agreement',
    fileUrl: 'https://documents.example/services-agreement.pdf',
    fields: [
      { id: 'fee', type: 'text', inputType: 'variable', label: 'Monthly fee' },
      { id: 'term', type: 'text', inputType: 'fixed', value: '12 months', label: 'Term' },
      { id: 'signature', type: 'signature', inputType: 'client', label: 'Your signature' },
    ],
  });
  await v1('POST', '/v1/contracts', {
    contractTemplateId: template.id,
    clientId: client.id,
    variableValues: { fee: '$1,200' },
  });

  return {
    workspaceId,
    cookies: { client: cookie, staff: await staffCookie(base, workspaceId, 'grace@acme.test') },
    pages: [
      { name: 'home', path: '/', as: 'client' },
      { name: 'messages', path: '/messages', as: 'client' },
      { name: 'conversation', path: `/messages/${channel.id}`, as: 'client' },
      { name: 'invoice', path: `/billing/invoices/${invoice.id}`, as: 'client' },
      { name: 'staff-clients', path: '/clients', as: 'staff' },
      { name: 'staff-client', path: `/clients/${client.id}`, as: 'staff' },
      { name: 'staff-inbox', path: '/messages', as: 'staff' },
      { name: 'staff-tasks', path: '/tasks', as: 'staff' },
    ],
  };
}

/**
 * The member of staff signs in as the sign-in page's link does: a link requested, read from the outbox (the server has
 * no SMTP_URL), redeemed; its session cookie.
 */
async function staffCookie(base: string, workspaceId: string, email: string): Promise<string> {
  const browserish = { 'x-portal-request': '1', origin: base };
  await call(base, 'POST', `/portal/${workspaceId}/api/sign-in/link`, browserish, { email, userType: 'internalUser' });
  let token: string | undefined;
  for (let attempt = 0; attempt < 100 && !token; attempt++) {
    const outbox = await call<{ data: { to: string; text?: string }[] }>(base, 'GET', `/admin/workspaces/${workspaceId}/outbox`, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    const text = outbox.body.data.find((mail) => mail.to === email && mail.text?.includes('/magic-link#'))?.text;
    token = text ? /\/magic-link#(\S+)/.exec(text)?.[1] : undefined;
    if (!token) await sleep(100);
  }
  if (!token) throw new Error(`no sign-in link was e-mailed to ${email}`);
  const redeemed = await call(base, 'POST', `/portal/${workspaceId}/api/sign-in/link/redeem`, browserish, { token });
  const session = redeemed.headers.getSetCookie().find((cookie) => cookie.startsWith('portal_session='));
  if (!session) throw new Error('the sign-in link set no portal_session cookie');
  return session.split(';')[0];
}

const METRICS = {
  FCP: 'first-contentful-paint',
  LCP: 'largest-contentful-paint',
  TBT: 'total-blocking-time',
  CLS: 'cumulative-layout-shift',
} as const;

/** The parts of a Lighthouse result (LHR) read here. */
interface Report {
  lighthouseVersion: string;
  finalDisplayedUrl: string;
  runtimeError?: { code: string; message: string };
  runWarnings: string[];
  categories: Record<Category, { score: number | null; auditRefs: { id: string; weight: number; group?: string }[] }>;
  audits: Record<
    string,
    {
      title: string;
      score: number | null;
      scoreDisplayMode: string;
      numericValue?: number;
      displayValue?: string;
      details?: { items?: { url?: string; statusCode?: number }[] };
    }
  >;
}

/** One Lighthouse run of `url`, its JSON report written to `output`. */
async function lighthouse(url: string, output: string, headersFile: string, options: Options): Promise<Report> {
  await run(
    process.execPath,
    [
      join(LIGHTHOUSE, 'cli', 'index.js'),
      url,
      '--output=json',
      `--output-path=${output}`,
      `--only-categories=${CATEGORIES.join(',')}`,
      `--chrome-flags=${CHROME_FLAGS.join(' ')}`,
      `--extra-headers=${headersFile}`,
      `--max-wait-for-load=${MAX_WAIT_FOR_LOAD_MS}`,
      '--quiet',
      ...(options.desktop ? ['--preset=desktop'] : []),
    ],
    { env: { ...process.env, CHROME_PATH: CHROMIUM }, timeoutMs: LIGHTHOUSE_RUN_MS, what: `lighthouse ${url}` },
  );
  const report = JSON.parse(await readFile(output, 'utf8')) as Report;
  if (report.runtimeError) throw new Error(`lighthouse ${url}: ${report.runtimeError.code} ${report.runtimeError.message}`);
  // A measurement of the signed-in page, or none: the session was read, and nothing the page asked for failed.
  const requests = report.audits['network-requests']?.details?.items ?? [];
  const session = requests.find((request) => request.url?.endsWith('/api/session'));
  if (session?.statusCode !== 200)
    throw new Error(`lighthouse ${url}: the page did not read a session (${session?.statusCode ?? 'no request'})`);
  const failed = requests.filter((request) => (request.statusCode ?? 0) >= 400);
  if (failed.length > 0) throw new Error(`lighthouse ${url}: ${failed.map((r) => `${r.statusCode} ${r.url}`).join(', ')}`);
  return report;
}

const score = (report: Report, category: Category) => Math.round((report.categories[category].score ?? 0) * 100);

/** The run whose performance score is the median (Lighthouse's advice for one figure out of several runs). */
function medianRun(reports: Report[]): Report {
  const sorted = [...reports].sort((a, b) => score(a, 'performance') - score(b, 'performance'));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function formatMetric(key: keyof typeof METRICS, report: Report): string {
  const value = report.audits[METRICS[key]]?.numericValue;
  if (value === undefined) return '–';
  if (key === 'CLS') return value.toFixed(3);
  if (key === 'TBT') return `${Math.round(value)} ms`;
  return `${(value / 1000).toFixed(1)} s`;
}

/**
 * What cost a category points: its weighted audits that did not pass, the heaviest first; for performance, also the
 * diagnostics Lighthouse estimates savings for (they carry no weight: the metrics do).
 */
function markedDown(report: Report, category: Category): string[] {
  return report.categories[category].auditRefs
    .filter((ref) => {
      const audit = report.audits[ref.id];
      const failed = audit?.score !== null && audit?.score !== undefined && audit.score < 1;
      return failed && (ref.weight > 0 || (ref.group === 'diagnostics' && audit.scoreDisplayMode === 'metricSavings'));
    })
    .sort((a, b) => b.weight - a.weight)
    .map((ref) => {
      const audit = report.audits[ref.id];
      const said = `${ref.id} (${Math.round((audit.score ?? 0) * 100)}${audit.displayValue ? `, ${audit.displayValue}` : ''}): ${audit.title}`;
      return ref.weight > 0 ? said : `suggests ${said}`;
    });
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  '))
    .join('\n');
}

// Everything to undo, however the run ends.
let server: Child | undefined;
let tempDir: string | undefined;

async function cleanup() {
  await Promise.all([...commands].map(stopCommand));
  commands.clear();
  if (server) await stopChild(server);
  server = undefined;
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}

async function main(options: Options): Promise<number> {
  const version = await ensureLighthouse();
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set PORTAL_TEST_CHROMIUM)`);
  await ensureBuilt();
  const head = (await run('git', ['rev-parse', '--short', 'HEAD'], { timeoutMs: REQUEST_TIMEOUT_MS, what: 'git rev-parse' })).trim();

  tempDir = await mkdtemp(join(tmpdir(), 'portal-lighthouse-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = startChild('server', ['bin/portal.js', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(tempDir, 'portal.db')}`,
      FILES_DIR: join(tempDir, 'files'),
      PORTAL_ADMIN_TOKEN: ADMIN_TOKEN,
      PORT: String(port),
      HOST: '127.0.0.1',
      PORTAL_URL: base,
      LOG_LEVEL: 'warn',
      // The setup's writes in a burst; the pages' own reads keep the default limits.
      RATE_LIMIT_WRITE_CAPACITY: '1000',
      RATE_LIMIT_WRITE_REFILL: '1000',
    },
  });
  await waitForHttp(server, `${base}/healthz`, (status) => status === 200, SERVER_START_MS);
  const { workspaceId, cookies, pages: allPages } = await signedInPortal(base);
  const unknown = options.pages?.filter((name) => !allPages.some((page) => page.name === name)) ?? [];
  if (unknown.length > 0) throw new UsageError(`no page named ${unknown.join(', ')}`);
  const pages = allPages.filter((page) => !options.pages || options.pages.includes(page.name));
  // The session rides on every request Lighthouse's browser makes (a file, not the command line: it is a credential).
  const headersFiles = { client: join(tempDir, 'headers-client.json'), staff: join(tempDir, 'headers-staff.json') };
  for (const as of ['client', 'staff'] as const) {
    await writeFile(headersFiles[as], JSON.stringify({ Cookie: cookies[as] }), { mode: 0o600 });
  }

  await rm(RESULTS, { recursive: true, force: true });
  await mkdir(RESULTS, { recursive: true });
  const mode = options.desktop ? 'desktop preset' : 'mobile, simulated throttling (Lighthouse’s default)';
  log(`Lighthouse ${version}, ${mode}; ${pages.length} pages × ${options.runs} run(s) …`);
  const measured: { page: Page; report: Report }[] = [];
  for (const page of pages) {
    const reports: Report[] = [];
    const headersFile = headersFiles[page.as];
    for (let n = 1; n <= options.runs; n++) {
      const output = join(RESULTS, `${page.name}-${n}.json`);
      const url = `${base}/portal/${workspaceId}${page.path}`;
      reports.push(
        await lighthouse(url, output, headersFile, options).catch((error: Error) => {
          // Lighthouse's own trace now and then fails on a busy machine (NO_NAVSTART: "Please run Lighthouse again").
          if (interrupted) throw error;
          log(`${page.name} run ${n} failed, once more: ${error.message.split('\n')[0]}`);
          return lighthouse(url, output, headersFile, options);
        }),
      );
      log(`${page.name} run ${n}: ${CATEGORIES.map((category) => score(reports[n - 1], category)).join(' / ')}`);
    }
    measured.push({ page, report: medianRun(reports) });
  }

  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, load average ${loadavg()[0].toFixed(2)} at the end`;
  const lines = [
    `Lighthouse ${version}, ${mode}, chromium ${CHROMIUM}; median of ${options.runs} run(s) by performance score`,
    `commit ${head}, ${new Date().toISOString()}, ${machine}`,
    '',
    table([
      ['page', ...CATEGORIES, ...Object.keys(METRICS)],
      ...measured.map(({ page, report }) => [
        page.name,
        ...CATEGORIES.map((category) => String(score(report, category))),
        ...(Object.keys(METRICS) as (keyof typeof METRICS)[]).map((key) => formatMetric(key, report)),
      ]),
    ]),
    '',
  ];
  const misses: string[] = [];
  for (const { page, report } of measured) {
    for (const category of CATEGORIES) {
      const value = score(report, category);
      if (value < BUDGET) misses.push(`${page.name} ${category} ${value} < ${BUDGET}`);
      if (value < 100) for (const audit of markedDown(report, category)) lines.push(`  ${page.name} ${category}: ${audit}`);
    }
  }
  lines.push(misses.length === 0 ? `PASS: every score ≥ ${BUDGET}` : `MISS: ${misses.join('; ')}`);
  lines.push(`Reports: ${RESULTS} (open one in https://googlechrome.github.io/lighthouse/viewer/)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const summary = {
    lighthouse: version,
    mode,
    runs: options.runs,
    commit: head,
    date: new Date().toISOString(),
    machine,
    budget: BUDGET,
    pages: measured.map(({ page, report }) => ({
      page: page.name,
      path: page.path,
      scores: Object.fromEntries(CATEGORIES.map((category) => [category, score(report, category)])),
      metrics: Object.fromEntries(Object.values(METRICS).map((id) => [id, report.audits[id]?.numericValue])),
    })),
  };
  await writeFile(join(RESULTS, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return misses.length === 0 ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}, stopping the server …`);
    void cleanup().finally(() => process.exit(130));
  });
}

let code = 1;
try {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    code = 0;
  } else {
    code = await main(options);
  }
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`lighthouse: ${error.message}\n${USAGE}\n`);
    code = 2;
  } else if (!interrupted) {
    process.stderr.write(`lighthouse failed: ${(error as Error).stack ?? error}\n`);
  }
} finally {
  await cleanup();
}
process.exit(interrupted ? 130 : code);
