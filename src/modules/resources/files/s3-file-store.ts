import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3StoreSettings } from '../../../config.js';
import { errors } from '../../../lib/errors.js';
import { type Area, type FileStore, KEY, QUARANTINE, UUID, capped, namespaceOf } from './file-store.js';

/** Uploads of more than this go in parts of this size, one part at a time: an upload holds at most this much in memory. */
const PART_BYTES = 8 * 1024 * 1024;

/** What the SDK throws for an S3 error: its code as `name`, and the HTTP status. */
interface S3Error {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

const statusOf = (error: unknown) => (error as S3Error).$metadata?.httpStatusCode;
const missing = (error: unknown) => (error as S3Error).name === 'NoSuchKey' || statusOf(error) === 404;

/**
 * Files' content in an S3-compatible bucket (AWS, MinIO, Ceph, R2…), streamed both ways. An upload is one
 * PutObject, or a multipart upload past PART_BYTES: either way the object appears whole when complete, or not
 * at all, and a failed upload's parts are given up (AbortMultipartUpload). What a killed process leaves is an
 * unfinished multipart upload, never an object: `sweep` aborts those older than the grace period, where the
 * store can list them (some, like s3rver, cannot: there a lifecycle rule on the bucket does it, docs/operations.md).
 * Objects are `<prefix><databaseId>/<key>`; at the legacy layout `<prefix><key>`, read and copied in.
 * The AWS SDK is loaded with the first use of the store, so a server on the local store never loads it.
 */
export class S3FileStore implements FileStore {
  readonly namespace: string;
  private client: Promise<{ s3: S3Client; reads: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> | undefined;

  constructor(
    private readonly settings: S3StoreSettings,
    databaseId: string,
  ) {
    this.namespace = namespaceOf(databaseId);
  }

  private connect() {
    this.client ??= import('@aws-sdk/client-s3').then((sdk) => {
      const { endpoint, region, forcePathStyle, credentials } = this.settings;
      const settings = {
        region,
        forcePathStyle,
        ...(endpoint ? { endpoint } : {}),
        ...(credentials ? { credentials } : {}),
        // Checksums only where S3 requires them: most S3-compatible stores reject the newer default's trailers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      } as const;
      const s3 = new sdk.S3Client(settings);
      // Reads (GetObject, HeadObject) go through a client that builds each command's middleware chain once, not on
      // every call: a download's chain, built while it waits on the store, was the largest single part of what
      // downloads kept past V8's young generation (bench/README.md, 2026-11-30). That client keeps the first command
      // of each kind it sends, so it takes only reads, whose commands hold no body; it shares the first client's sockets.
      const reads = new sdk.S3Client({ ...settings, cacheMiddleware: true, requestHandler: s3.config.requestHandler });
      return { s3, reads, sdk };
    });
    return this.client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      const { s3, reads } = await client;
      reads.destroy();
      s3.destroy(); // its kept-alive connections
    }
  }

  /** The area's prefix of keys in the bucket. */
  private base(area: Area): string {
    const { prefix } = this.settings;
    return area === 'live' ? `${prefix}${this.namespace}/` : area === 'quarantine' ? `${prefix}${this.namespace}/${QUARANTINE}/` : prefix;
  }

  /** The object's name in the bucket: only keys of the service's own shape, under the area's prefix. */
  private objectKey(key: string, area: Area = 'live'): string {
    if (!KEY.test(key)) throw new Error(`not a file store key: ${JSON.stringify(key)}`);
    return `${this.base(area)}${key}`;
  }

  async put(key: string, source: AsyncIterable<Buffer>, limit: number): Promise<{ size: number }> {
    const Key = this.objectKey(key);
    const { s3 } = await this.connect();
    const { Upload } = await import('@aws-sdk/lib-storage');
    const counted = { bytes: 0 };
    const upload = new Upload({
      client: s3,
      params: { Bucket: this.settings.bucket, Key, Body: Readable.from(capped(limit, counted)(source)) },
      partSize: PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // Past the limit, the 413 is the answer even when giving up the parts failed too (the sweep's business).
      if (counted.bytes > limit) throw errors.payloadTooLarge(limit);
      throw error;
    }
    return { size: counted.bytes };
  }

  async get(key: string): Promise<{ size: number; body: Readable | Buffer } | undefined> {
    const { reads, sdk } = await this.connect();
    for (const area of ['live', 'legacy'] as const) {
      try {
        const object = await reads.send(new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key, area) }));
        return { size: object.ContentLength ?? 0, body: object.Body as Readable };
      } catch (error) {
        if (!missing(error)) throw error;
      }
    }
    return undefined;
  }

  async has(key: string, area: Area): Promise<boolean> {
    const { reads, sdk } = await this.connect();
    try {
      await reads.send(new sdk.HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key, area) }));
      return true;
    } catch (error) {
      if (missing(error) || (error as S3Error).name === 'NotFound') return false;
      throw error;
    }
  }

  async remove(key: string, areas: readonly Area[] = ['live', 'legacy']): Promise<void> {
    const { s3, sdk } = await this.connect();
    for (const area of areas) await s3.send(new sdk.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key, area) }));
  }

  /** The pages of a listing of the bucket under `Prefix`, grouped at `/` when `Delimiter` is given. */
  private async *pages(Prefix: string, Delimiter?: string) {
    const { s3, sdk } = await this.connect();
    let ContinuationToken: string | undefined;
    do {
      const page = await s3.send(new sdk.ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix, Delimiter, ContinuationToken }));
      yield page;
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async *list(area: Area = 'live'): AsyncIterable<{ key: string; modifiedMs: number }> {
    const base = this.base(area);
    // The legacy layout shares its prefix with every database's: only objects directly under a top-level
    // folder are at it (a database's objects are a level deeper), listed one folder at a time.
    const folders: string[] = [];
    if (area === 'legacy') {
      for await (const page of this.pages(base, '/'))
        for (const { Prefix } of page.CommonPrefixes ?? []) if (Prefix && UUID.test(Prefix.slice(base.length, -1))) folders.push(Prefix);
    } else folders.push(base);
    for (const folder of folders) {
      for await (const page of this.pages(folder, area === 'legacy' ? '/' : undefined)) {
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(base.length);
          if (key && KEY.test(key)) yield { key, modifiedMs: object.LastModified?.getTime() ?? 0 };
        }
      }
    }
  }

  async copy(key: string, from: Area, to: Area): Promise<boolean> {
    const { s3, sdk } = await this.connect();
    const { bucket } = this.settings;
    try {
      // A copy's time is when it was made: what the quarantine's grace counts from.
      await s3.send(
        new sdk.CopyObjectCommand({
          Bucket: bucket,
          Key: this.objectKey(key, to),
          CopySource: encodeURI(`${bucket}/${this.objectKey(key, from)}`),
        }),
      );
      return true;
    } catch (error) {
      if (missing(error)) return false;
      throw error;
    }
  }

  /** A copy, then the source removed: never atomic in S3, but at every moment the content is somewhere. */
  async move(key: string, from: Area, to: Area): Promise<boolean> {
    if (!(await this.copy(key, from, to))) return false;
    await this.remove(key, [from]);
    return true;
  }

  async sweep(idleMs: number, now = Date.now()): Promise<number> {
    const { s3, sdk } = await this.connect();
    const { bucket } = this.settings;
    const prefix = this.base('live');
    let removed = 0;
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    do {
      let page: import('@aws-sdk/client-s3').ListMultipartUploadsCommandOutput;
      try {
        page = await s3.send(new sdk.ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix, KeyMarker, UploadIdMarker }));
      } catch (error) {
        // A store that cannot list uploads in progress: its bucket's lifecycle rule aborts them.
        if ((error as S3Error).name === 'NotImplemented' || statusOf(error) === 501 || statusOf(error) === 405) return removed;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || now - (upload.Initiated?.getTime() ?? now) < idleMs) continue;
        await s3.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
        removed++;
      }
      ({ NextKeyMarker: KeyMarker, NextUploadIdMarker: UploadIdMarker } = page.IsTruncated ? page : {});
    } while (KeyMarker);
    return removed;
  }
}
