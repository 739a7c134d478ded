// The bare stream routes the file bench (bench/file-bytes.ts) measures the server's content routes against, on the
// server's own paths: a Fastify app whose PUT /files/uploads/:id streams the request's body into a file of its own
// and whose GET /v1/files/:id/download streams a file into the reply, with nothing else around them (no credential,
// no database, no store's layout). Configured by env: PORT, HOST, BARE_DIR (where it writes), BARE_FILE (the file
// its GET sends).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';

const dir = process.env.BARE_DIR as string;
const file = process.env.BARE_FILE as string;
const app = Fastify({ logger: { level: 'warn' }, bodyLimit: 1024 * 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

app.put('/files/uploads/:id', async (request) => {
  await pipeline(request.body as NodeJS.ReadableStream, createWriteStream(join(dir, randomUUID()), { flags: 'wx' }));
  return { ok: true };
});

app.get('/v1/files/:id/download', (_request, reply) => {
  const { size } = statSync(file);
  return reply.type('application/octet-stream').header('content-length', size).send(createReadStream(file));
});

const shutdown = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
