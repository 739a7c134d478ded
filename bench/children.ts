// Child processes for the bench: start, wait until they answer, measure memory, stop.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { createServer } from 'node:net';

const OUTPUT_LIMIT = 20_000; // characters of a child's output kept for error messages
const STOP_GRACE_MS = 5_000; // SIGTERM, then SIGKILL after this
const POLL_INTERVAL_MS = 100;

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<string>;
  /** The tail of its stdout + stderr, for error messages. */
  output(): string;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rejects if `promise` is not settled within `ms`: every wait of the bench is bounded. */
export async function withTimeout<T>(promise: PromiseLike<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A port free right now on 127.0.0.1 (the OS picks it; the tiny race before the child binds is acceptable). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

interface StartOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Pin to this CPU (`taskset -c <cpu>`); null: unpinned. */
  readonly cpu?: string | null;
  /** Keep stdin open as a pipe (the load worker waits for its go on it). */
  readonly stdin?: boolean;
}

/**
 * Runs `node <args>`, pinned to one CPU when `cpu` is given (taskset execs node, so the pid is node's);
 * output is kept (bounded) so a failed start can be explained.
 */
export function startChild(name: string, args: string[], options: StartOptions): Child {
  const [command, argv] = options.cpu == null ? [process.execPath, args] : ['taskset', ['-c', options.cpu, process.execPath, ...args]];
  const child = spawn(command, argv, { cwd: options.cwd, env: options.env, stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? String(code)));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });
  return { name, process: child, exited, output: () => output };
}

function isRunning(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** Polls `url` until `accept(status)` holds; fails early if the child exits, and after `timeoutMs`. */
export async function waitForHttp(child: Child, url: string, accept: (status: number) => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!isRunning(child)) {
      throw new Error(`${child.name} exited (${await child.exited}) before answering ${url}:\n${child.output()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (accept(response.status)) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = (error as Error).message; // not listening yet
    }
    await sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs / 1000} s (${last}):\n${child.output()}`);
}

/** SIGTERM, then SIGKILL if it is still there after 5 s. Never throws. */
export async function stopChild(child: Child): Promise<void> {
  if (!isRunning(child)) return;
  child.process.kill('SIGTERM');
  const gone = await Promise.race([child.exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
  if (gone) return;
  child.process.kill('SIGKILL');
  await Promise.race([child.exited, sleep(STOP_GRACE_MS)]);
}

interface Memory {
  /** Resident set size now, MB. */
  readonly rssMb: number;
  /** Peak resident set size since the process started (VmHWM), MB. */
  readonly peakRssMb: number;
}

/** Reads VmRSS / VmHWM from /proc (Linux only; null elsewhere or once the process is gone). */
export function readMemory(pid: number | undefined): Memory | null {
  if (pid === undefined) return null;
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  const rss = kb('VmRSS');
  const peak = kb('VmHWM');
  if (Number.isNaN(rss) || Number.isNaN(peak)) return null;
  return { rssMb: rss / 1024, peakRssMb: peak / 1024 };
}

/**
 * Resets the process's peak RSS (VmHWM) to its current RSS (`echo 5 > /proc/<pid>/clear_refs`, Linux
 * 4.0+), so the next reading is the peak of what ran since. False when the kernel or permissions refuse.
 */
export function resetPeakRss(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU time (user + system, ms) a process has used, from /proc (Linux only; null elsewhere). CPU per
 * request is far steadier than requests/s on a shared machine: scheduling noise moves throughput,
 * not the work each request costs.
 */
export function readCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times: 100 on every mainstream kernel. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Where the measured servers and the load generator run. */
export interface Pinning {
  /** CPU of every measured server (real, bare, naive); null: unpinned. */
  readonly serverCpu: string | null;
  /** CPU of the load generator; null: unpinned. */
  readonly loadCpu: string | null;
  readonly note: string;
}

/** The CPUs this process may run on (Cpus_allowed_list, Linux), else 0..n-1. */
function allowedCpus(): number[] {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (list) {
      const cpus = list.split(',').flatMap((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return Array.from({ length: to - from + 1 }, (_, k) => from + k);
      });
      if (cpus.length > 0 && cpus.every(Number.isInteger)) return cpus;
    }
  } catch {
    // not Linux: fall through
  }
  return Array.from({ length: availableParallelism() }, (_, k) => k);
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Servers on the first allowed CPU, the load generator on the second, when taskset and two CPUs are there. */
export function planPinning(): Pinning {
  const cpus = allowedCpus();
  if (!onPath('taskset'))
    return { serverCpu: null, loadCpu: null, note: 'UNPINNED: taskset not found, server and load generator share the CPUs' };
  if (cpus.length < 2) return { serverCpu: null, loadCpu: null, note: `UNPINNED: only one CPU (${cpus.join(',')}) available` };
  const [server, load] = cpus.map(String);
  return {
    serverCpu: server,
    loadCpu: load,
    note: `pinned (taskset): every measured server on CPU ${server}, the load generator on CPU ${load}`,
  };
}
