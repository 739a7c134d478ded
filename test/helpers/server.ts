import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';

export interface Server {
  child: ChildProcess;
  base: string;
  /** stdout and stderr together, in arrival order */
  output: () => string;
  /** stdout alone: the JSON log lines */
  stdout: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `portal serve` on a free port (or `env.PORT`, for a test that must know it first: PORTAL_URL) with this
 * environment; resolves once it listens (20 s at most).
 */
export function serve(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['bin/portal.js', 'serve'], {
    env: { ...process.env, PORT: '0', ...env, HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in 20 s:\n${out}`));
    }, 20_000);
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve({ child, base: match[1], output: () => out, stdout: () => stdout, exited });
    };
    child.stdout?.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server exited early:\n${out}`));
    });
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone (at most 10 s). */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    const giveUp = setTimeout(done, 10_000);
    function done() {
      clearTimeout(kill);
      clearTimeout(giveUp);
      resolve();
    }
    child.once('exit', done);
    child.kill('SIGTERM');
  });
}

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** GET with the key, on its own connection, bounded by 15 s. */
export function httpGet(base: string, path: string, apiKey: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { 'x-api-key': apiKey }, agent: false, timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${base}${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** A JSON request to a running server (a body sent as JSON, the answer parsed when there is one), bounded by 15 s. */
export async function jsonRequest<T = unknown>(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(base + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
