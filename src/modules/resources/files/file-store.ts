import { randomUUID } from 'node:crypto';
import { close, closeSync, constants, fstatSync, open, openSync, read, readSync, writev } from 'node:fs';
import { copyFile, link, mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { errors } from '../../../lib/errors.js';

/**
 * Where a key's content is in a store: `live`, under the database's own id (`<databaseId>/<key>`), what it
 * writes; `legacy`, at the layout before stores were namespaced (`<key>` at the top), read and adopted; and
 * `quarantine` (`<databaseId>/.quarantine/<key>`), the sweep's orphans kept a while before they are deleted.
 */
export type Area = 'live' | 'legacy' | 'quarantine';

/**
 * Where files' content lives: one small interface, so another store (S3-compatible) can stand in for the
 * local directory. Keys are made by the service (`<workspaceId>/<fileId>`), never from a name a caller gave.
 * Several databases may share one directory or bucket prefix: each store writes, lists and sweeps only under
 * its database's id, so no database's sweep can reach another's content.
 */
export interface FileStore {
  /** The database id the store keeps its content under. */
  readonly namespace: string;
  /**
   * Streams `source` into the object `key`, at most `limit` bytes (past it a 413): the object appears whole,
   * or not at all, and a failed or aborted write leaves nothing behind.
   */
  put(key: string, source: AsyncIterable<Buffer>, limit: number): Promise<{ size: number }>;
  /**
   * The object's content (live, else at the legacy layout), or undefined when there is none: the bytes themselves
   * when the store read them whole (the local store's small content), else a stream.
   */
  get(key: string): Promise<{ size: number; body: Readable | Buffer } | undefined>;
  /** Whether the area holds the object. */
  has(key: string, area: Area): Promise<boolean>;
  /** Removes the object from the given areas (by default where a deleted row's content is: live and legacy). */
  remove(key: string, areas?: readonly Area[]): Promise<void>;
  /**
   * Every object of an area, with when it was last written (ms; in quarantine: when it was put there): what the
   * sweep checks against the database.
   */
  list(area?: Area): AsyncIterable<{ key: string; modifiedMs: number }>;
  /** Copies the object between areas (the source stays); false when the source has none. */
  copy(key: string, from: Area, to: Area): Promise<boolean>;
  /** Moves the object between areas (into quarantine: stamped with the time it went there); false when there was none. */
  move(key: string, from: Area, to: Area): Promise<boolean>;
  /**
   * Removes what writes cut short by a killed process left (temporary content untouched for `idleMs`, longer
   * than any upload may take, so another process's upload in progress is spared); how many.
   */
  sweep(idleMs: number, now?: number): Promise<number>;
  /** Lets go of what the store holds open (an S3 client's connections), when the app closes. */
  close?(): Promise<void>;
}

export const UUID = /^[0-9a-f-]{36}$/;
/** A content key of the service's own shape, `<workspaceId>/<fileId>`: no other key is ever read or written. */
export const KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/** A pipeline step passing bytes on until there are more than `limit`: then a 413. */
export function capped(limit: number, counted: { bytes: number }) {
  return async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      counted.bytes += chunk.length;
      if (counted.bytes > limit) throw errors.payloadTooLarge(limit);
      yield chunk;
    }
  };
}

/** A store's content as a stream, whichever way the store gave it. */
export function asStream(body: Readable | Buffer): Readable {
  return Buffer.isBuffer(body) ? Readable.from([body]) : body;
}

/** Where quarantined content goes, inside the database's own directory or prefix. */
export const QUARANTINE = '.quarantine';

/** What a store of `database` is told of it: its id, checked, since it names a directory or a prefix. */
export function namespaceOf(databaseId: string): string {
  if (!UUID.test(databaseId)) throw new Error(`not a database id: ${JSON.stringify(databaseId)}`);
  return databaseId;
}

/**
 * The local store reads content of at most this many bytes whole, by synchronous calls (open, fstat, read, close):
 * from the page cache that takes a few microseconds, where each call through libuv's thread pool costs some 40 µs of
 * CPU (a download of 64 KiB made five). Larger content is streamed, so no read holds the event loop long.
 */
export const SMALL_BYTES = 128 * 1024;
/** Larger content is read in pieces of this size: a quarter of the reads of the default 64 KiB. */
const READ_BYTES = 256 * 1024;

/**
 * Writes stay off the event loop (a writer the kernel throttles while it flushes dirty pages would stop every
 * request), in batches of this many bytes, one writev each: an upload of 64 KiB makes four thread-pool calls (open,
 * writev, close, rename) where it made seven, two of them `mkdir`.
 */
const WRITE_BYTES = 1024 * 1024;

// The callback API, wrapped: fs/promises's FileHandle costs more than the calls themselves at this size.
const openAsync = (path: string, flags: string) =>
  new Promise<number>((resolve, reject) => open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
const writevAsync = (fd: number, chunks: Buffer[]) =>
  new Promise<number>((resolve, reject) => writev(fd, chunks, (error, written) => (error ? reject(error) : resolve(written))));
const readAsync = (fd: number, buffer: Buffer, length: number, position: number) =>
  new Promise<number>((resolve, reject) =>
    read(fd, buffer, 0, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
const closeAsync = (fd: number) => new Promise<void>((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve())));

/** Writes the chunks to `fd`: one writev, repeated only for what a short write left. */
async function writeAll(fd: number, chunks: Buffer[]): Promise<void> {
  let left = chunks;
  while (left.length > 0) {
    let bytesWritten = await writevAsync(fd, left);
    const rest: Buffer[] = [];
    for (const chunk of left) {
      if (bytesWritten >= chunk.length) bytesWritten -= chunk.length;
      else {
        rest.push(bytesWritten > 0 ? chunk.subarray(bytesWritten) : chunk);
        bytesWritten = 0;
      }
    }
    left = rest;
  }
}

/** The file's `size` bytes (fewer if it ends first). */
function readAll(fd: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const got = readSync(fd, bytes, read, size - read, read);
    if (got === 0) break;
    read += got;
  }
  return read === size ? bytes : bytes.subarray(0, read);
}

/**
 * A large file's content, from an open file, in READ_BYTES pieces. Read as any stream, each piece is a new buffer. Piped
 * into an HTTP response (as Fastify sends a reply's stream), it reads into two buffers it takes turns with, a buffer
 * filled again only once the response has written it out (its write's callback): a download of 100 MiB otherwise
 * allocates 100 MiB of buffers outside V8's heap, which V8 answers with a scavenge and a mark-compact of the whole heap
 * every few tens of MB (40 % of the server's CPU while downloading, measured). Other destinations (a PassThrough calls
 * back before its reader has the bytes) get the stream's own pipe.
 */
export class FileContent extends Readable {
  private position = 0;
  /** The read under way: the file is closed only once it is done (its number could be another file's by then). */
  private reading: Promise<number> | undefined;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {
    super({ highWaterMark: READ_BYTES });
  }

  /** The next piece into `buffer`, counted; a file ending before its size is an error. */
  private async readInto(buffer: Buffer): Promise<number> {
    this.reading = readAsync(this.fd, buffer, Math.min(buffer.length, this.size - this.position), this.position);
    const bytesRead = await this.reading;
    if (bytesRead === 0) throw new Error('The file’s content ended before its size.');
    this.position += bytesRead;
    return bytesRead;
  }

  override _read(): void {
    if (this.position >= this.size) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafeSlow(Math.min(READ_BYTES, this.size - this.position));
    this.readInto(buffer).then(
      (bytesRead) => this.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead)),
      (error: Error) => this.destroy(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const closeFile = () => close(this.fd, () => callback(error));
    if (this.reading) this.reading.then(closeFile, closeFile);
    else closeFile();
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    if (!(destination instanceof ServerResponse)) return super.pipe(destination, options);
    this.sendTo(destination, options?.end !== false).catch((error: Error) => this.destroy(error));
    return destination;
  }

  private async sendTo(response: ServerResponse, end: boolean): Promise<void> {
    let sent = false;
    // A response whose connection is gone calls no write back: its close ends the stream, and so the wait.
    response.once('close', () => sent || this.destroy());
    const stopped = new Promise<void>((resolve) => this.once('close', resolve));
    const pieces = [Buffer.allocUnsafeSlow(READ_BYTES), Buffer.allocUnsafeSlow(READ_BYTES)];
    let written: Promise<void> = Promise.resolve();
    for (let turn = 0; this.position < this.size; turn++) {
      // This buffer's last write (two turns ago) was awaited before the last turn's write began.
      const piece = pieces[turn % 2];
      const bytesRead = await this.readInto(piece);
      await Promise.race([written, stopped]);
      if (this.destroyed) return;
      written = new Promise<void>((resolve, reject) => {
        response.write(piece.subarray(0, bytesRead), (error) => (error ? reject(error) : resolve()));
      });
      written.catch(() => {}); // heard by the next wait, unless the stream is closed by then
    }
    await Promise.race([written, stopped]);
    if (this.destroyed) return;
    sent = true;
    if (end) response.end();
    this.push(null);
    this.resume(); // ends the stream (nothing is buffered): it then closes its file
  }
}

/**
 * The local directory store: content under `<dir>/<databaseId>/`, streamed to its `.tmp/<random>` and renamed
 * into `<dir>/<databaseId>/<key>` when complete (a rename within one file system is atomic), the temporary file
 * removed on any failure. A process killed mid-upload leaves its temporary file, which the next sweep removes
 * (`sweep`: at start, then hourly). Content at the legacy layout (`<dir>/<key>`) is read, and copied in as a
 * hard link (no second copy of the bytes).
 */
export class LocalFileStore implements FileStore {
  readonly namespace: string;
  private readonly dir: string;
  private readonly own: string;
  private readonly tmp: string;

  constructor(dir: string, databaseId: string) {
    this.namespace = namespaceOf(databaseId);
    this.dir = resolve(dir);
    this.own = join(this.dir, this.namespace);
    this.tmp = join(this.own, '.tmp');
  }

  /** The area's directory of keys. */
  private base(area: Area): string {
    return area === 'live' ? this.own : area === 'quarantine' ? join(this.own, QUARANTINE) : this.dir;
  }

  /** The object's path: only keys of the service's own shape, so no key can leave the directory. */
  private pathOf(key: string, area: Area = 'live'): string {
    if (!KEY.test(key)) throw new Error(`not a file store key: ${JSON.stringify(key)}`);
    return join(this.base(area), key);
  }

  async put(key: string, source: AsyncIterable<Buffer>, limit: number): Promise<{ size: number }> {
    const target = this.pathOf(key);
    const temporary = join(this.tmp, randomUUID());
    const counted = { bytes: 0 };
    try {
      let fd: number;
      try {
        fd = await openAsync(temporary, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(this.tmp, { recursive: true }); // made when missing, not checked on every write
        fd = await openAsync(temporary, 'wx');
      }
      // The chunks go out in batches of WRITE_BYTES, one writev each, the next batch taken in while one is written;
      // content of at most that size is written once, at its end.
      let writing: Promise<void> = Promise.resolve();
      try {
        let batch: Buffer[] = [];
        let batchBytes = 0;
        for await (const chunk of capped(limit, counted)(source)) {
          batch.push(chunk);
          batchBytes += chunk.length;
          if (batchBytes < WRITE_BYTES && batch.length < 1024) continue; // 1,024: the most buffers a writev takes (IOV_MAX)
          await writing;
          writing = writeAll(fd, batch);
          writing.catch(() => {}); // heard when it is awaited, next batch or last
          batch = [];
          batchBytes = 0;
        }
        await writing;
        await writeAll(fd, batch);
      } finally {
        await writing.catch(() => {}); // a failed read waits for the write under way before the file is closed
        await closeAsync(fd);
      }
      try {
        await rename(temporary, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(dirname(target), { recursive: true }); // the workspace's first content
        await rename(temporary, target);
      }
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { size: counted.bytes };
  }

  async get(key: string): Promise<{ size: number; body: Readable | Buffer } | undefined> {
    for (const area of ['live', 'legacy'] as const) {
      let fd: number;
      try {
        fd = openSync(this.pathOf(key, area), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      try {
        const { size } = fstatSync(fd);
        if (size > SMALL_BYTES) return { size, body: new FileContent(fd, size) }; // it closes the file
        const body = readAll(fd, size);
        closeSync(fd);
        return { size: body.length, body };
      } catch (error) {
        closeSync(fd);
        throw error;
      }
    }
    return undefined;
  }

  async has(key: string, area: Area): Promise<boolean> {
    return (await stat(this.pathOf(key, area)).catch(() => undefined))?.isFile() ?? false;
  }

  async remove(key: string, areas: readonly Area[] = ['live', 'legacy']): Promise<void> {
    for (const area of areas) await rm(this.pathOf(key, area), { force: true });
  }

  async *list(area: Area = 'live'): AsyncIterable<{ key: string; modifiedMs: number }> {
    const base = this.base(area);
    const names = async (path: string) => readdir(path).catch(() => [] as string[]);
    // At the legacy layout's top, database ids are directories too: their entries are directories, not files.
    for (const workspace of (await names(base)).filter((name) => UUID.test(name))) {
      for (const file of (await names(join(base, workspace))).filter((name) => UUID.test(name))) {
        const info = await stat(join(base, workspace, file)).catch(() => undefined);
        if (info?.isFile()) yield { key: `${workspace}/${file}`, modifiedMs: info.mtimeMs };
      }
    }
  }

  async copy(key: string, from: Area, to: Area): Promise<boolean> {
    const source = this.pathOf(key, from);
    const target = this.pathOf(key, to);
    await mkdir(dirname(target), { recursive: true });
    try {
      await link(source, target);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return false;
      if (code === 'EEXIST') return true; // copied already (content is written once per key)
    }
    // A file system without hard links: a copy, renamed into place whole.
    await mkdir(this.tmp, { recursive: true });
    const temporary = join(this.tmp, randomUUID());
    try {
      await copyFile(source, temporary, constants.COPYFILE_EXCL);
      await rename(temporary, target);
      return true;
    } catch (error) {
      await rm(temporary, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async move(key: string, from: Area, to: Area): Promise<boolean> {
    const source = this.pathOf(key, from);
    const target = this.pathOf(key, to);
    try {
      // Stamped first, so what is in quarantine always shows when it went there (a rename keeps the time).
      if (to === 'quarantine') await utimes(source, new Date(), new Date());
      await mkdir(dirname(target), { recursive: true });
      await rename(source, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async sweep(idleMs: number, now = Date.now()): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.tmp);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs >= idleMs) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }
}
