import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { FILE_STORES, fileStoreEnv } from '../../../../test/helpers/s3.js';
import { loadConfig } from '../../../config.js';
import { ApiError } from '../../../lib/errors.js';
import { type Area, asStream, type FileContent, type FileStore, LocalFileStore, SMALL_BYTES } from './file-store.js';
import { S3FileStore } from './s3-file-store.js';

const WS = '0b6f7d0e-1c2a-4b3c-8d4e-5f6a7b8c9d0e';
const DATABASE = '5e1d0c2b-3a49-4f8e-9d7c-6b5a4f3e2d1c';
const OTHER_DATABASE = '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d';
const key = (n: number) => `${WS}/00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function* chunks(total: number, size = 64 * 1024): AsyncIterable<Buffer> {
  for (let sent = 0; sent < total; sent += size) yield Buffer.alloc(Math.min(size, total - sent), sent % 251);
}

/** The content as one piece. */
async function* whole(content: Buffer): AsyncIterable<Buffer> {
  yield content;
}

async function read(store: FileStore, k: string): Promise<Buffer | undefined> {
  const found = await store.get(k);
  if (!found) return undefined;
  const parts: Buffer[] = [];
  for await (const part of asStream(found.body)) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
async function keys(store: FileStore, area: Area = 'live') {
  const found: string[] = [];
  for await (const { key } of store.list(area)) found.push(key);
  return found.sort();
}

/** The store contract (file-store.ts FileStore), on the local directory and on an S3-compatible bucket. */
for (const kind of FILE_STORES) {
  describe(`file store [${kind}]`, () => {
    /** A store of the database `id`; with `env`, on the same directory or bucket prefix as another. */
    async function open(t: import('node:test').TestContext, id = DATABASE, env?: Record<string, string>) {
      if (!env) {
        const dir = mkdtempSync(join(tmpdir(), 'portal-store-'));
        t.after(() => rmSync(dir, { recursive: true, force: true }));
        env = { FILES_DIR: dir, ...(await fileStoreEnv(kind)) };
      }
      const config = loadConfig(env);
      const store: FileStore = config.filesS3 ? new S3FileStore(config.filesS3, id) : new LocalFileStore(config.filesDir, id);
      t.after(() => store.close?.());
      return { store, env };
    }

    test('content round-trips byte for byte (empty, small, and past one part), is listed, and goes when removed', async (t) => {
      const { store } = await open(t);
      assert.deepEqual(await keys(store), []);
      assert.equal(await store.get(key(1)), undefined, 'no content: undefined, not an error');
      assert.deepEqual(await store.put(key(1), chunks(0), 100), { size: 0 });
      assert.deepEqual(await store.put(key(2), chunks(5), 100), { size: 5 });
      const big = 9 * 1024 * 1024 + 17; // more than one 8 MiB part
      assert.deepEqual(await store.put(key(3), chunks(big), 20 * 1024 * 1024), { size: big });
      assert.deepEqual((await read(store, key(1)))?.length, 0);
      assert.deepEqual(await read(store, key(2)), Buffer.alloc(5, 0));
      const expected: Buffer[] = [];
      for await (const part of chunks(big)) expected.push(part);
      const got = await read(store, key(3));
      assert.deepEqual([got?.length, got && sha(got)], [big, sha(Buffer.concat(expected))]);
      assert.equal((await store.get(key(3)))?.size, big);
      assert.deepEqual(await keys(store), [key(1), key(2), key(3)]);
      for await (const { modifiedMs } of store.list()) assert.ok(Math.abs(Date.now() - modifiedMs) < 60_000, 'when it was written');
      await store.remove(key(2));
      await store.remove(key(2)); // nothing there: nothing done
      assert.deepEqual(await keys(store), [key(1), key(3)]);
    });

    test('past the limit: a 413, and no content', async (t) => {
      const { store } = await open(t);
      await assert.rejects(store.put(key(4), chunks(300_000), 200_000), (error) => error instanceof ApiError && error.statusCode === 413);
      await assert.rejects(
        store.put(key(5), chunks(9 * 1024 * 1024), 8.5 * 1024 * 1024),
        (error) => error instanceof ApiError && error.statusCode === 413,
      );
      assert.deepEqual(await keys(store), []);
      assert.equal(await store.get(key(4)), undefined);
    });

    test('at the local store’s whole-read size: bytes up to it, a stream past it; a source failing at any point leaves nothing', async (t) => {
      const { store } = await open(t);
      const sizes = [SMALL_BYTES - 1, SMALL_BYTES, SMALL_BYTES + 1, 3 * SMALL_BYTES + 7];
      for (const [n, size] of sizes.entries()) {
        assert.deepEqual(await store.put(key(10 + n), chunks(size, 1000), 10 * SMALL_BYTES), { size });
        const expected: Buffer[] = [];
        for await (const part of chunks(size, 1000)) expected.push(part);
        const found = await store.get(key(10 + n));
        assert.equal(found?.size, size);
        if (kind === 'local') assert.equal(Buffer.isBuffer(found?.body), size <= SMALL_BYTES, `${size} bytes read whole`);
        assert.equal(sha((await read(store, key(10 + n))) as Buffer), sha(Buffer.concat(expected)));
      }
      for (const [n, size] of [SMALL_BYTES - 100, 2 * SMALL_BYTES, 3 * 1024 * 1024 + 5].entries()) {
        async function* failing() {
          yield* chunks(size, 1000);
          throw new Error('the client went away');
        }
        await assert.rejects(store.put(key(20 + n), failing(), 50 * SMALL_BYTES), /the client went away/);
        assert.equal(await store.get(key(20 + n)), undefined);
      }
      await assert.rejects(
        store.put(key(30), chunks(SMALL_BYTES, 1000), 5000),
        (error) => error instanceof ApiError && error.statusCode === 413,
      );
      assert.deepEqual(
        await keys(store),
        sizes.map((_, n) => key(10 + n)),
      );
      assert.equal(await store.sweep(0), 0, 'no temporary file left behind');
    });

    // S3's reads share one middleware chain per kind of command (s3-file-store.ts): concurrent reads must not mix.
    test('concurrent reads and checks of different keys each answer for their own key', async (t) => {
      const { store } = await open(t);
      const contents = [1, 2, 3].map((n) => Buffer.alloc(1000 + n, n));
      for (const [n, content] of contents.entries()) await store.put(key(40 + n), whole(content), 10_000);
      const rounds = Array.from({ length: 40 }, (_, i) => i % 4); // keys 40, 41, 42 and 43 (absent), interleaved
      const [reads, checks] = await Promise.all([
        Promise.all(rounds.map((n) => read(store, key(40 + n)))),
        Promise.all(rounds.map((n) => store.has(key(40 + n), 'live'))),
      ]);
      const [expectedReads, expectedChecks] = [rounds.map((n) => contents[n]), rounds.map((n) => n < 3)];
      assert.deepEqual(reads, expectedReads);
      assert.deepEqual(checks, expectedChecks);
    });

    test('only keys of the service’s shape', async (t) => {
      const { store } = await open(t);
      for (const bad of ['../x', `${WS}/../../etc`, 'a/b', `${WS}`]) {
        await assert.rejects(store.put(bad, chunks(1), 10), /not a file store key/);
        await assert.rejects(store.get(bad), /not a file store key/);
      }
    });
  });
}

/** Rule (issue 42, point 11): a store knows whose it is — each database's content under its own id. */
for (const kind of FILE_STORES) {
  describe(`file store areas [${kind}]`, () => {
    async function pair(t: import('node:test').TestContext) {
      const dir = mkdtempSync(join(tmpdir(), 'portal-store-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const config = loadConfig({ FILES_DIR: dir, ...(await fileStoreEnv(kind)) });
      const make = (id: string): FileStore =>
        config.filesS3 ? new S3FileStore(config.filesS3, id) : new LocalFileStore(config.filesDir, id);
      const [one, two] = [make(DATABASE), make(OTHER_DATABASE)];
      t.after(() => one.close?.());
      t.after(() => two.close?.());
      return { one, two, dir };
    }

    test('two databases’ stores on one directory or prefix: each lists, reads and sweeps only its own', async (t) => {
      const { one, two } = await pair(t);
      await one.put(key(1), chunks(3), 10);
      await two.put(key(2), chunks(4), 10);
      assert.deepEqual([await keys(one), await keys(two)], [[key(1)], [key(2)]]);
      assert.equal(await one.get(key(2)), undefined, 'another database’s content is not this one’s');
      assert.deepEqual([await one.has(key(1), 'live'), await one.has(key(2), 'live')], [true, false]);
      assert.equal(await one.sweep(0, Date.now() + 1), 0);
      await one.remove(key(2));
      assert.deepEqual((await read(two, key(2)))?.length, 4, 'a remove reaches only its own database’s content');
      assert.deepEqual(
        [await keys(one, 'legacy'), await keys(two, 'legacy')],
        [[], []],
        'a database’s objects are not at the legacy layout',
      );
    });

    test('legacy layout: read, listed, copied in (the source stays), removed by its area', async (t) => {
      const { one, two } = await pair(t);
      await one.put(key(1), chunks(5), 10);
      assert.equal(await one.move(key(1), 'live', 'legacy'), true, 'content as a release before namespaces left it');
      assert.deepEqual([await keys(one), await keys(one, 'legacy'), await keys(two, 'legacy')], [[], [key(1)], [key(1)]]);
      assert.deepEqual(await read(one, key(1)), Buffer.alloc(5, 0), 'read at the legacy layout');
      assert.equal(await one.copy(key(1), 'legacy', 'live'), true);
      assert.equal(await one.copy(key(1), 'legacy', 'live'), true, 'again: nothing changes');
      assert.deepEqual([await keys(one), await keys(one, 'legacy')], [[key(1)], [key(1)]]);
      assert.deepEqual(await keys(two), [], 'the other database’s store holds nothing');
      await one.remove(key(1), ['legacy']);
      assert.deepEqual([await keys(one), await keys(one, 'legacy')], [[key(1)], []]);
      assert.deepEqual(await read(one, key(1)), Buffer.alloc(5, 0));
      assert.equal(await one.copy(key(9), 'legacy', 'live'), false, 'nothing to copy');
      assert.equal(await one.move(key(9), 'live', 'quarantine'), false, 'nothing to move');
    });

    test('quarantine: moved there stamped with the time, out of the live listing, moved back whole', async (t) => {
      const { one, dir } = await pair(t);
      await one.put(key(1), chunks(6), 10);
      // Written long ago (on the local store; an S3 object's time cannot be set): its time in quarantine starts now.
      const longAgo = new Date(Date.now() - 30 * 86_400_000);
      if (kind === 'local') await utimes(join(dir, DATABASE, key(1)), longAgo, longAgo);
      const before = Date.now();
      assert.equal(await one.move(key(1), 'live', 'quarantine'), true);
      assert.deepEqual([await keys(one), await keys(one, 'quarantine')], [[], [key(1)]]);
      assert.equal(await one.get(key(1)), undefined, 'quarantined content is not served');
      for await (const { modifiedMs } of one.list('quarantine')) assert.ok(modifiedMs >= before - 1000, 'when it went there');
      assert.equal(await one.move(key(1), 'quarantine', 'live'), true);
      assert.deepEqual(await read(one, key(1)), Buffer.alloc(6, 0));
      assert.deepEqual(await keys(one, 'quarantine'), []);
    });
  });
}

/**
 * The local store's large content (FileContent): piped into an HTTP response it reads into two buffers it reuses, each
 * only once the response has written it out; piped anywhere else, or read, each piece is its own buffer.
 */
describe('file store [local]: large content sent to a response', { timeout: 60_000 }, () => {
  const MiB = 1024 * 1024;

  async function stored(t: import('node:test').TestContext, contents: Buffer[]) {
    const dir = mkdtempSync(join(tmpdir(), 'portal-store-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const store = new LocalFileStore(dir, DATABASE);
    for (const [n, content] of contents.entries()) await store.put(key(n), whole(content), 10 * MiB);
    return { store, dir };
  }

  /** The content of `key(n)`, as the stream the store gives for large content. */
  async function opened(store: LocalFileStore, n: number): Promise<{ size: number; body: FileContent }> {
    const found = await store.get(key(n));
    assert.ok(found && !Buffer.isBuffer(found.body), 'a stream');
    return { size: found.size, body: found.body as FileContent };
  }

  /**
   * A server piping the content of `key(n)` (n from the path) into each response, the way Fastify sends a stream; with
   * `?shorten`, the file is cut to 1 MiB once opened.
   */
  async function serve(t: import('node:test').TestContext, store: LocalFileStore, served: FileContent[], dir: string) {
    const server = createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const n = Number(url.pathname.slice(1));
      const { size, body } = await opened(store, n);
      if (url.searchParams.has('shorten')) truncateSync(join(dir, DATABASE, key(n)), MiB); // after it was opened
      served.push(body);
      body.on('error', () => response.destroy());
      response.setHeader('content-length', size);
      body.pipe(response);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The body of `url`, read in pieces with a pause after each of the first `pauses` (the server's writes then wait). */
  function download(url: string, pauses = 0) {
    return new Promise<Buffer>((resolve, reject) => {
      get(url, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => {
          parts.push(part);
          if (parts.length <= pauses) {
            response.pause();
            setTimeout(() => response.resume(), 20);
          }
        });
        response.on('end', () => resolve(Buffer.concat(parts)));
        response.on('error', reject);
        response.on('aborted', () => reject(new Error('aborted')));
      }).on('error', reject);
    });
  }

  test('reused buffers: every byte arrives as stored, read slowly or not, eight downloads of two files at once; each file closed', async (t) => {
    const contents = [randomBytes(8 * MiB + 5), randomBytes(MiB + 3)];
    const { store, dir } = await stored(t, contents);
    const served: FileContent[] = [];
    const base = await serve(t, store, served, dir);
    const got = await Promise.all(Array.from({ length: 8 }, (_, i) => download(`${base}/${i % 2}`, i < 4 ? 20 : 0)));
    for (const [i, body] of got.entries()) assert.equal(sha(body), sha(contents[i % 2]), `download ${i}`);
    assert.equal(served.length, 8);
    for (const body of served) if (!body.closed) await once(body, 'close');
    assert.deepEqual(
      served.map((body) => [body.readableEnded, body.destroyed]),
      served.map(() => [true, true]),
      'ended, and its file closed',
    );
  });

  test('a download its client leaves half-way closes the file; one whose file got shorter is cut off, never ended as whole', async (t) => {
    const { store, dir } = await stored(t, [randomBytes(4 * MiB), randomBytes(2 * MiB), randomBytes(2 * MiB)]);
    const served: FileContent[] = [];
    const base = await serve(t, store, served, dir);
    await new Promise<void>((resolve, reject) => {
      const request = get(`${base}/0`, (response) => {
        let received = 0;
        response.on('data', (part: Buffer) => {
          received += part.length;
          if (received >= MiB) request.destroy();
        });
        response.on('error', () => {});
      });
      request.on('close', resolve);
      request.on('error', (error) => (request.destroyed ? resolve() : reject(error)));
    });
    if (!served[0].closed) await once(served[0], 'close');
    assert.deepEqual([served[0].readableEnded, served[0].destroyed], [false, true], 'not ended: destroyed, its file closed');

    await assert.rejects(download(`${base}/1?shorten`), /aborted|socket hang up|ECONNRESET/);
    if (!served[1].closed) await once(served[1], 'close');
    assert.equal(served[1].destroyed, true);

    const { body } = await opened(store, 2);
    truncateSync(join(dir, DATABASE, key(2)), MiB); // shortened after it was opened, then read as a stream
    await assert.rejects(async () => {
      for await (const _ of body);
    }, /ended before its size/);
  });

  test('piped into a stream that passes pieces on (not a response), each piece is its own buffer: every byte as stored', async (t) => {
    const content = randomBytes(2 * MiB + 1);
    const { store } = await stored(t, [content]);
    const { body } = await opened(store, 0);
    const through = new PassThrough({ highWaterMark: 4 * MiB }); // takes every piece before any is read
    body.pipe(through);
    await once(body, 'end');
    const parts: Buffer[] = [];
    for await (const part of through) parts.push(part as Buffer);
    assert.equal(sha(Buffer.concat(parts)), sha(content));
  });
});
