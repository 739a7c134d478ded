// The bare stream routes the file bench (bench/file-bytes.ts) measures the server's content routes against, on the
// server's own paths: a Fastify app whose PUT /files/uploads/:id streams the request's body into the store and whose
// GET /v1/files/:id/download streams the stored content into the reply, with nothing else around them (no
// credential, no database, no store's layout). Configured by env: PORT, HOST, BARE_FILE (the content its GET sends)
// and either BARE_DIR (a directory: the local store's anchor) or BARE_S3_BUCKET (a bucket, with the server's S3_ENDPOINT,
// S3_REGION and AWS_* variables: the S3 store's anchor, the SDK's upload and download as the store makes them).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';

const file = process.env.BARE_FILE as string;
const app = Fastify({ logger: { level: 'warn' }, bodyLimit: 1024 * 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

const bucket = process.env.BARE_S3_BUCKET;
if (bucket) {
  const { GetObjectCommand, PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
  const { Upload } = await import('@aws-sdk/lib-storage');
  // With src/modules/resources/files/s3-file-store.ts's settings and uploads; one client of the SDK's defaults for both
  // ways (the store's reads go through a client caching its middleware chains: the server's saving, not the anchor's).
  const s3 = new S3Client({
    region: process.env.S3_REGION,
    endpoint: process.env.S3_ENDPOINT,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'bare/download', Body: readFileSync(file) }));
  app.put('/files/uploads/:id', async (request) => {
    const Body = request.body as Readable;
    await new Upload({
      client: s3,
      params: { Bucket: bucket, Key: `bare/${randomUUID()}`, Body },
      partSize: 8 * 1024 * 1024,
      queueSize: 1,
    }).done();
    return { ok: true };
  });
  app.get('/v1/files/:id/download', async (_request, reply) => {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'bare/download' }));
    return reply
      .type('application/octet-stream')
      .header('content-length', object.ContentLength)
      .send(object.Body as Readable);
  });
} else {
  const dir = process.env.BARE_DIR as string;
  app.put('/files/uploads/:id', async (request) => {
    await pipeline(request.body as NodeJS.ReadableStream, createWriteStream(join(dir, randomUUID()), { flags: 'wx' }));
    return { ok: true };
  });
  app.get('/v1/files/:id/download', (_request, reply) => {
    const { size } = statSync(file);
    return reply.type('application/octet-stream').header('content-length', size).send(createReadStream(file));
  });
}

const shutdown = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
