// What the benches share to run the real server: where it is, how it is started, its limits and its CLI.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Workspace } from './scenarios.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LOG_LEVEL = 'warn'; // no per-request logs on any side: the bare route and the naive server have none
export const CLI_TIMEOUT_MS = 30_000;
/** The server as `npm start` runs it: compiled (bin/portal.js picks dist/ when it is fresh), with its heap limits. */
export const SERVE_ARGS = [
  '--max-semi-space-size=4',
  '--max-old-space-size=256',
  '--no-allocation-site-pretenuring',
  'bin/portal.js',
  'serve',
];

/** Limits on, but roomy enough never to refuse the load generator: their cost is measured, not their effect. */
export const ROOMY_LIMITS = {
  RATE_LIMIT_GET_CAPACITY: '1000000000',
  RATE_LIMIT_GET_REFILL: '1000000000',
  RATE_LIMIT_WRITE_CAPACITY: '1000000000',
  RATE_LIMIT_WRITE_REFILL: '1000000000',
};

/** `node scripts/build.mjs`: the server compiled, as `npm start` runs it (bin/portal.js picks dist/ once it is fresh). */
export function buildServer(): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, timeout: CLI_TIMEOUT_MS }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}

/** The middle value (the lower of the two middle ones for an even count): a figure of several rounds. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** `node <argv>` in the repository: its one JSON line on stdout, parsed. */
export function runNode(argv: string[], env: NodeJS.ProcessEnv, timeoutMs = CLI_TIMEOUT_MS): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const lines = stdout.trim().split('\n').filter(Boolean);
      if (error || lines.length !== 1) {
        reject(new Error(`node ${argv.join(' ')} failed (${error?.message ?? `${lines.length} output lines`}):\n${stdout}${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(lines[0]));
      } catch {
        reject(new Error(`node ${argv.join(' ')} printed no JSON: ${stdout}`));
      }
    });
  });
}

/** A workspace and its API key, made by the CLI on the database of `env` (before the server starts, or beside it). */
export async function createWorkspace(name: string, env: NodeJS.ProcessEnv): Promise<Workspace> {
  const output = await runNode(['bin/portal.js', 'workspaces', 'create', '--name', name, '--daily-quota', '100000000', '--json'], env);
  const { workspaceId, apiKeyId, apiKey } = (output ?? {}) as Record<string, unknown>;
  if (typeof workspaceId !== 'string' || typeof apiKeyId !== 'string' || typeof apiKey !== 'string') {
    throw new Error(`unexpected output of portal workspaces create: ${JSON.stringify(output)}`);
  }
  return { workspaceId, apiKeyId, apiKey };
}
