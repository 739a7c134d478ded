import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors } from '../../lib/errors.js';

/**
 * Where files' content lives: one small interface, so another store (S3-compatible) can stand in for the
 * local directory. Keys are made by the service (`<workspaceId>/<fileId>`), never from a name a caller gave.
 */
export interface FileStore {
  /**
   * Streams `source` into the object `key`, at most `limit` bytes (past it a 413): the object appears whole,
   * or not at all, and a failed or aborted write leaves nothing behind.
   */
  put(key: string, source: AsyncIterable<Buffer>, limit: number): Promise<{ size: number }>;
  /** The object's content, or undefined when there is none. */
  get(key: string): Promise<{ size: number; stream: Readable } | undefined>;
  /** Removes the object (nothing when there is none). */
  remove(key: string): Promise<void>;
  /** Every object, with when it was last written (ms): what the orphan sweep checks against the database. */
  list(): AsyncIterable<{ key: string; modifiedMs: number }>;
  /**
   * Removes what writes cut short by a killed process left (temporary content untouched for `idleMs`, longer
   * than any upload may take, so another process's upload in progress is spared); how many.
   */
  sweep(idleMs: number, now?: number): Promise<number>;
  /** Lets go of what the store holds open (an S3 client's connections), when the app closes. */
  close?(): Promise<void>;
}

const UUID = /^[0-9a-f-]{36}$/;
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

/**
 * The local directory store: content streamed to `<dir>/.tmp/<random>` and renamed into `<dir>/<key>` when
 * complete (a rename within one file system is atomic), the temporary file removed on any failure. A process
 * killed mid-upload leaves its temporary file, which the next sweep removes (`sweep`: at start, then hourly).
 */
export class LocalFileStore implements FileStore {
  private readonly dir: string;
  private readonly tmp: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.tmp = join(this.dir, '.tmp');
  }

  /** The object's path: only keys of the service's own shape, so no key can leave the directory. */
  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a file store key: ${JSON.stringify(key)}`);
    return join(this.dir, key);
  }

  async put(key: string, source: AsyncIterable<Buffer>, limit: number): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await mkdir(this.tmp, { recursive: true });
    const temporary = join(this.tmp, randomUUID());
    const counted = { bytes: 0 };
    try {
      await pipeline(source, capped(limit, counted), createWriteStream(temporary, { flags: 'wx' }));
      await mkdir(join(target, '..'), { recursive: true });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { size: counted.bytes };
  }

  async get(key: string): Promise<{ size: number; stream: Readable } | undefined> {
    const path = this.pathOf(key);
    try {
      const { size } = await stat(path);
      return { size, stream: createReadStream(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async *list(): AsyncIterable<{ key: string; modifiedMs: number }> {
    const names = async (path: string) => readdir(path).catch(() => [] as string[]);
    for (const workspace of (await names(this.dir)).filter((name) => UUID.test(name))) {
      for (const file of (await names(join(this.dir, workspace))).filter((name) => UUID.test(name))) {
        const info = await stat(join(this.dir, workspace, file)).catch(() => undefined);
        if (info?.isFile()) yield { key: `${workspace}/${file}`, modifiedMs: info.mtimeMs };
      }
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
