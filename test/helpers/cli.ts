import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `portal …` as a user would, on the given database; returns exit code and output. */
export function portal(databaseUrl: string, ...args: string[]) {
  return portalWith({}, databaseUrl, ...args);
}

/** `portal …` with these variables added to its environment. */
export async function portalWith(env: Record<string, string>, databaseUrl: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/portal.js', ...args], {
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `--json` prints exactly one JSON object on stdout, nothing else: parses it, failing otherwise. */
export function oneJson(stdout: string) {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one line of output, got: ${stdout}`);
  return JSON.parse(lines[0]);
}
