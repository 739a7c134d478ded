// `npm run bench:files [-- --s3]`: what a file's content costs the server, measured from outside over real sockets:
// PUT to a signed upload URL and GET /v1/files/{id}/download, of 64 KiB and of 100 MiB, on the local store (and with
// --s3 on an S3-compatible bucket too: the s3rver the tests use, started here), each beside the bare stream routes
// (bench/bare-stream.ts: a body streamed to the store, the stored content streamed to the reply, on the same paths:
// a file on the local store, the AWS SDK's upload and download on S3). The server and the bare routes run pinned to
// one CPU, the load on the other; the targets take turns, BENCH_ROUNDS times (3).
// - 64 KiB: the main bench's load worker (autocannon, 50 connections, 2 s warm-up + 5 s measured): CPU per request.
// - 100 MiB: one request at a time, six a turn, from this process: MB/s, and CPU per request; each turn after a `sync`.
// The goals of issue 46: 64 KiB upload ≤ 3× and download ≤ 2× the bare route's CPU; 100 MiB ≥ 0.8 of its MB/s.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Child, freePort, planPinning, readCpuMs, startChild, stopChild, waitForHttp } from './children.js';
import { type RequestSpec, measure } from './load.js';
import { LOG_LEVEL, ROOMY_LIMITS, ROOT, SERVE_ARGS, buildServer, createWorkspace, median } from './server-setup.js';

const MiB = 1024 * 1024;
const SMALL = 64 * 1024;
const LARGE = 100 * MiB;
const LARGE_REQUESTS = 6;
const LOAD = { connections: 50, seconds: 5, warmupSeconds: 2 };
/** Upload URLs made for each measured 64 KiB turn: more than the server can take in it (each takes content once). */
const SMALL_UPLOADS = 7 * 4000;
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 120_000;

interface Turn {
  readonly cpuUsPerRequest: number;
  readonly megabytesPerSecond: number;
}

const agent = new Agent({ keepAlive: true });

/** One request; the answer's body read to its end and counted (its first 4 KiB kept, for a JSON answer or an error). */
function send(url: string, method: 'GET' | 'PUT' | 'POST', headers: Record<string, string | number>, body?: Buffer | string) {
  return new Promise<{ status: number; bytes: number; text: string }>((resolve, reject) => {
    const req = request(url, { method, headers, agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      let bytes = 0;
      const head: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (bytes < 4096) head.push(chunk);
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: Buffer.concat(head).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function json(url: string, method: 'POST', apiKey: string, body: object): Promise<Record<string, string>> {
  const res = await send(url, method, { 'x-api-key': apiKey, 'content-type': 'application/json' }, JSON.stringify(body));
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${res.text}`);
  return JSON.parse(res.text) as Record<string, string>;
}

/** LARGE_REQUESTS calls, one at a time: the target's CPU per request and the MB/s moved. */
async function oneAtATime(target: Child, call: () => Promise<void>): Promise<Turn> {
  const cpuBefore = readCpuMs(target.process.pid) ?? Number.NaN;
  const start = performance.now();
  for (let i = 0; i < LARGE_REQUESTS; i++) await call();
  const seconds = (performance.now() - start) / 1000;
  const cpuMs = (readCpuMs(target.process.pid) ?? Number.NaN) - cpuBefore;
  return { cpuUsPerRequest: (cpuMs * 1000) / LARGE_REQUESTS, megabytesPerSecond: (LARGE * LARGE_REQUESTS) / MiB / seconds };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { s3: { type: 'boolean' } } });
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const pinning = planPinning();
  // This process sends the large requests (and runs s3rver): on the load's CPU, every thread of it.
  if (pinning.loadCpu !== null) execFileSync('taskset', ['-a', '-p', '-c', pinning.loadCpu, String(process.pid)], { stdio: 'ignore' });
  // The server runs compiled, as `npm start` runs it.
  await buildServer();
  const work = mkdtempSync(join(tmpdir(), 'portal-file-bench-'));
  const children = new Set<Child>();
  const start = async (name: string, args: string[], env: NodeJS.ProcessEnv, url: string, healthy: (status: number) => boolean) => {
    const child = startChild(name, args, { cwd: ROOT, env, cpu: pinning.serverCpu });
    children.add(child);
    await waitForHttp(child, url, healthy, START_TIMEOUT_MS);
    return child;
  };
  const stop = async (child: Child) => {
    children.delete(child);
    await stopChild(child);
  };
  const closers: (() => Promise<unknown>)[] = [];
  const rows: string[] = [];
  try {
    // Each store's server env, and its bare routes' (the same store with nothing around it).
    const stores: { name: string; env: Record<string, string>; bareEnv: Record<string, string> }[] = [
      { name: 'local', env: {}, bareEnv: {} },
    ];
    if (values.s3) {
      const { default: S3rver } = await import('s3rver');
      const s3 = new S3rver({
        address: '127.0.0.1',
        port: 0,
        silent: true,
        directory: join(work, 's3'),
        configureBuckets: [{ name: 'bench' }],
      });
      const { port } = await s3.run();
      closers.push(() => s3.close());
      const s3Env = {
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_FORCE_PATH_STYLE: '1',
        S3_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
      };
      stores.push({
        name: 'S3 (s3rver)',
        env: { FILES_STORE: 's3://bench/files', ...s3Env },
        bareEnv: { BARE_S3_BUCKET: 'bench', ...s3Env },
      });
    }
    // The content: ASCII, so the load worker can send it as text (64 KiB), and the file the bare GET sends.
    const contents = {
      [SMALL]: randomBytes((SMALL * 3) / 4).toString('base64'),
      [LARGE]: Buffer.from(randomBytes((LARGE * 3) / 4).toString('base64')),
    };
    const bareDir = join(work, 'bare');
    mkdirSync(bareDir);

    for (const store of stores) {
      const storeDir = join(work, store.name.replace(/\W+/g, '-'));
      mkdirSync(storeDir);
      const env = {
        ...process.env,
        DATABASE_URL: `sqlite:${join(storeDir, 'bench.db')}`,
        FILES_DIR: join(storeDir, 'files'),
        FILES_MAX_BYTES: String(2 * LARGE),
        FILES_URL_TTL_SECONDS: '7200',
        HOST: '127.0.0.1',
        LOG_LEVEL,
        ...ROOMY_LIMITS,
        ...store.env,
      };
      const { apiKey } = await createWorkspace('File bench', env);
      const serverPort = await freePort();
      const serverUrl = `http://127.0.0.1:${serverPort}`;
      const server = await start('server', SERVE_ARGS, { ...env, PORT: String(serverPort) }, `${serverUrl}/healthz`, (s) => s === 200);
      const company = await json(`${serverUrl}/v1/companies`, 'POST', apiKey, { name: 'Files' });
      const channel = await json(`${serverUrl}/v1/channels/files`, 'POST', apiKey, { membershipType: 'company', companyId: company.id });
      let made = 0;
      const uploadPath = async () => {
        const file = await json(`${serverUrl}/v1/files/file`, 'POST', apiKey, { channelId: channel.id, path: `bench-${made++}.bin` });
        const url = new URL(file.uploadUrl);
        return { id: file.id, path: `${url.pathname}${url.search}` };
      };
      const uploadPaths = async (count: number) => {
        const paths: string[] = [];
        for (let first = 0; first < count; first += 50)
          paths.push(...(await Promise.all(Array.from({ length: Math.min(50, count - first) }, uploadPath))).map((made) => made.path));
        return paths;
      };

      for (const bytes of [SMALL, LARGE]) {
        const content = contents[bytes];
        const text = typeof content === 'string' ? content : ''; // the load worker's body (64 KiB only)
        const headers = { 'content-type': 'application/octet-stream' };
        const downloaded = await uploadPath();
        const put = await send(`${serverUrl}${downloaded.path}`, 'PUT', headers, content);
        if (put.status !== 200) throw new Error(`uploading the file to download: ${put.status} ${put.text}`);
        const bareFile = join(work, `bare-${bytes}.bin`);
        writeFileSync(bareFile, content);
        const barePort = await freePort();
        const bareUrl = `http://127.0.0.1:${barePort}`;
        const bare = await start(
          'bare stream routes',
          ['--import', 'tsx', 'bench/bare-stream.ts'],
          { ...process.env, PORT: String(barePort), BARE_DIR: bareDir, BARE_FILE: bareFile, ...store.bareEnv },
          `${bareUrl}/v1/files/x/download`,
          (s) => s === 200,
        );
        const download = { method: 'GET', path: `/v1/files/${downloaded.id}/download`, headers: { 'x-api-key': apiKey } } as const;
        const turns: Record<string, Turn[]> = { 'upload bare': [], 'upload server': [], 'download bare': [], 'download server': [] };
        for (let round = 0; round < rounds; round++) {
          for (const kind of ['upload', 'download'] as const) {
            const order = round % 2 === 0 ? (['bare', 'server'] as const) : (['server', 'bare'] as const);
            for (const target of order) {
              const child = target === 'bare' ? bare : server;
              const baseUrl = target === 'bare' ? bareUrl : serverUrl;
              let turn: Turn;
              if (bytes === SMALL) {
                let spec: RequestSpec = download;
                if (kind === 'upload' && target === 'bare') spec = { method: 'PUT', path: '/files/uploads/any', headers, content: text };
                if (kind === 'upload' && target === 'server') {
                  // The server takes each URL's content once: a fresh one a request.
                  const paths = await uploadPaths(SMALL_UPLOADS);
                  const file = join(work, `paths-${round}.txt`);
                  writeFileSync(file, paths.join('\n'));
                  writeFileSync(`${file}.next`, '0');
                  spec = { method: 'PUT', path: paths[0], headers, content: text, oneUsePaths: { file, route: '/files/uploads/:id' } };
                }
                const measured = await measure(baseUrl, child.process.pid, spec, 200, LOAD, {
                  cwd: ROOT,
                  loadCpu: pinning.loadCpu,
                  indexStart: 0,
                  track: () => {},
                });
                if (measured.unexpected > 0 || measured.errors > 0)
                  throw new Error(`${kind} ${target}: ${measured.unexpected} unexpected answers, ${measured.errors} errors`);
                turn = {
                  cpuUsPerRequest: measured.cpuUsPerRequest ?? Number.NaN,
                  megabytesPerSecond: (measured.requestsPerSec * bytes) / MiB,
                };
              } else {
                const call =
                  kind === 'upload'
                    ? async () => {
                        const path = target === 'server' ? (await uploadPath()).path : '/files/uploads/any';
                        const res = await send(`${baseUrl}${path}`, 'PUT', headers, content);
                        if (res.status !== 200) throw new Error(`${kind} ${target}: ${res.status} ${res.text}`);
                      }
                    : async () => {
                        const res = await send(`${baseUrl}${download.path}`, 'GET', download.headers);
                        if (res.status !== 200 || res.bytes !== bytes)
                          throw new Error(`${kind} ${target}: ${res.status}, ${res.bytes} bytes`);
                      };
                // The turn before left up to 600 MiB of dirty pages: written back now, so their writeback is no one's turn.
                execFileSync('sync');
                turn = await oneAtATime(child, call);
              }
              turns[`${kind} ${target}`].push(turn);
            }
          }
          process.stderr.write(`file bench: ${store.name}, ${bytes === SMALL ? '64 KiB' : '100 MiB'}, round ${round + 1}/${rounds} done\n`);
        }
        await stop(bare);
        for (const kind of ['upload', 'download'] as const) {
          const [theirs, ours] = [turns[`${kind} bare`], turns[`${kind} server`]];
          const cpu = (list: Turn[]) => median(list.map((turn) => turn.cpuUsPerRequest));
          const rate = (list: Turn[]) => median(list.map((turn) => turn.megabytesPerSecond));
          const each = (list: Turn[]) =>
            list.map((turn) => `${turn.cpuUsPerRequest.toFixed(0)} µs ${turn.megabytesPerSecond.toFixed(0)} MB/s`).join(', ');
          rows.push(
            `| ${store.name} | ${kind} | ${bytes === SMALL ? '64 KiB' : '100 MiB'} | ${cpu(theirs).toFixed(0)} | ${cpu(ours).toFixed(0)} | ` +
              `${(cpu(ours) / cpu(theirs)).toFixed(2)} | ${rate(theirs).toFixed(1)} | ${rate(ours).toFixed(1)} | ${(rate(ours) / rate(theirs)).toFixed(2)} | ` +
              `${each(theirs)} | ${each(ours)} |`,
          );
        }
      }
      await stop(server);
    }
  } finally {
    for (const child of children) await stopChild(child);
    for (const close of closers) await close();
    agent.destroy();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `${pinning.note}. Medians of ${rounds} round(s); CPU: the target's user + system time per request (/proc). MB/s: for 64 KiB, ` +
      'requests/s × 64 KiB under load; for 100 MiB, one request at a time.\n\n' +
      '| store | request | size | bare CPU µs | server CPU µs | server ÷ bare | bare MB/s | server MB/s | server ÷ bare | bare, each round | server, each round |\n' +
      '|---|---|---|---|---|---|---|---|---|---|---|\n' +
      `${rows.join('\n')}\n`,
  );
}

await main();
