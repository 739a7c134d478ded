// The baseline: a bare Fastify 5 app answering one route with a fixed JSON body, so the bench can
// tell the portal's own cost apart from what Node + Fastify cost anyway. Configured by env:
//   PORT, HOST, LOG_LEVEL (default warn, like the server: no per-request logs),
//   BASELINE_METHOD, BASELINE_PATH, BASELINE_STATUS, BASELINE_BODY (JSON text, or empty for no body),
//   BASELINE_RAW=1: BASELINE_BODY is sent as it is, as application/octet-stream (a download),
//   BASELINE_CONTRACT_HEADERS=1: each answer also carries the six headers the contract adds to every /v1
//   answer (a fresh X-Request-Id, the burst limit's two, the quota's three), to measure what they cost.
// A 404 status registers no route: the answer then comes from Fastify's not-found path, as on the server.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type HTTPMethods } from 'fastify';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`baseline: ${name} is required`);
  return value;
}

const method = required('BASELINE_METHOD') as HTTPMethods;
const path = required('BASELINE_PATH');
const status = Number(required('BASELINE_STATUS'));
const bodyText = process.env.BASELINE_BODY ?? '';
const raw = process.env.BASELINE_RAW === '1';
// Parsed once: each reply serializes the object, as a real handler does (or sends the bytes, for a download).
const body: unknown = bodyText === '' ? undefined : raw ? Buffer.from(bodyText) : JSON.parse(bodyText);

const app = Fastify({ logger: { level: process.env.LOG_LEVEL || 'warn' } });
// An upload's bytes are read to their end and dropped (the server streams them to its store).
app.addContentTypeParser('application/octet-stream', (_request, payload, done) => {
  payload.on('error', done);
  payload.on('end', () => done(null));
  payload.resume();
});

/** The server's values, as wide as its own (a day's quota of 100,000,000 as the bench's workspaces have). */
const answer =
  process.env.BASELINE_CONTRACT_HEADERS === '1'
    ? (reply: FastifyReply) =>
        reply
          .header('x-request-id', randomUUID())
          .headers({
            'x-ratelimit-limit': 1000000000,
            'x-ratelimit-remaining': 999999999,
            'x-service-quota-limit': 100000000,
            'x-service-quota-remaining': 99999999,
            'x-service-quota-reset': 1795737600,
          })
          .code(status)
          .send(body)
    : raw
      ? (reply: FastifyReply) => reply.code(status).type('application/octet-stream').send(body)
      : (reply: FastifyReply) => reply.code(status).send(body);

if (status === 404) {
  app.setNotFoundHandler((_request, reply) => answer(reply));
} else {
  app.route({ method, url: path, handler: (_request, reply) => answer(reply) });
}

const shutdown = () =>
  void app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ port: Number(required('PORT')), host: process.env.HOST || '127.0.0.1' });
