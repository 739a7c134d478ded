import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import S3rver from 's3rver';

/** Where files' content goes in a test: FILES_DIR, or an S3-compatible bucket (s3rver, started by the tests). */
export type FileStoreKind = 'local' | 's3';

/** Every file test runs on both stores. */
export const FILE_STORES: FileStoreKind[] = ['local', 's3'];

const BUCKET = 'portal-test';

let running: Promise<{ endpoint: string; server: Server }> | undefined;

// After the tests of the file that loaded this: the server and every connection it holds (an upload cut short
// leaves one waiting for the rest of its body), so the test process ends.
after(async () => {
  if (!running) return;
  const { server } = await running;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * One s3rver per test process, on a port of its own, its objects in a temporary directory removed when the
 * process ends: an S3-compatible server that needs nothing installed (s3rver on the npm registry).
 */
async function s3Endpoint(): Promise<string> {
  running ??= (async () => {
    const directory = mkdtempSync(join(tmpdir(), 'portal-s3-'));
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    return { endpoint: `http://127.0.0.1:${port}`, server: (server as unknown as { httpServer: Server }).httpServer };
  })();
  return (await running).endpoint;
}

/** The environment of a store: nothing for the local directory (the harness's FILES_DIR); a prefix of its own in the bucket for S3. */
export async function fileStoreEnv(kind: FileStoreKind): Promise<Record<string, string>> {
  if (kind === 'local') return {};
  return {
    FILES_STORE: `s3://${BUCKET}/t-${randomBytes(6).toString('hex')}`,
    S3_ENDPOINT: await s3Endpoint(),
    S3_FORCE_PATH_STYLE: '1',
    S3_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
}
