import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3StoreSettings } from '../../config.js';
import { errors } from '../../lib/errors.js';
import { type FileStore, KEY, capped } from './file-store.js';

/** Uploads of more than this go in parts of this size, one part at a time: an upload holds at most this much in memory. */
const PART_BYTES = 8 * 1024 * 1024;

/** What the SDK throws for an S3 error: its code as `name`, and the HTTP status. */
interface S3Error {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

const statusOf = (error: unknown) => (error as S3Error).$metadata?.httpStatusCode;

/**
 * Files' content in an S3-compatible bucket (AWS, MinIO, Ceph, R2…), streamed both ways. An upload is one
 * PutObject, or a multipart upload past PART_BYTES: either way the object appears whole when complete, or not
 * at all, and a failed upload's parts are given up (AbortMultipartUpload). What a killed process leaves is an
 * unfinished multipart upload, never an object: `sweep` aborts those older than the grace period, where the
 * store can list them (some, like s3rver, cannot: there a lifecycle rule on the bucket does it, docs/operations.md).
 * The AWS SDK is loaded with the first use of the store, so a server on the local store never loads it.
 */
export class S3FileStore implements FileStore {
  private client: Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> | undefined;

  constructor(private readonly settings: S3StoreSettings) {}

  private connect() {
    this.client ??= import('@aws-sdk/client-s3').then((sdk) => {
      const { endpoint, region, forcePathStyle, credentials } = this.settings;
      const s3 = new sdk.S3Client({
        region,
        forcePathStyle,
        ...(endpoint ? { endpoint } : {}),
        ...(credentials ? { credentials } : {}),
        // Checksums only where S3 requires them: most S3-compatible stores reject the newer default's trailers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { s3, sdk };
    });
    return this.client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) (await client).s3.destroy(); // its kept-alive connections
  }

  /** The object's name in the bucket: only keys of the service's own shape, under the prefix. */
  private objectKey(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a file store key: ${JSON.stringify(key)}`);
    return `${this.settings.prefix}${key}`;
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

  async get(key: string): Promise<{ size: number; stream: Readable } | undefined> {
    const Key = this.objectKey(key);
    const { s3, sdk } = await this.connect();
    try {
      const object = await s3.send(new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key }));
      return { size: object.ContentLength ?? 0, stream: object.Body as Readable };
    } catch (error) {
      if ((error as S3Error).name === 'NoSuchKey' || statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    const Key = this.objectKey(key);
    const { s3, sdk } = await this.connect();
    await s3.send(new sdk.DeleteObjectCommand({ Bucket: this.settings.bucket, Key }));
  }

  async *list(): AsyncIterable<{ key: string; modifiedMs: number }> {
    const { s3, sdk } = await this.connect();
    const { bucket, prefix } = this.settings;
    let ContinuationToken: string | undefined;
    do {
      const page = await s3.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(prefix.length);
        if (key && KEY.test(key)) yield { key, modifiedMs: object.LastModified?.getTime() ?? 0 };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async sweep(idleMs: number, now = Date.now()): Promise<number> {
    const { s3, sdk } = await this.connect();
    const { bucket, prefix } = this.settings;
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
