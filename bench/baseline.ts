// The baseline: a bare Fastify 5 app answering one route with a fixed JSON body, so the bench can
// tell the portal's own cost apart from what Node + Fastify cost anyway. Configured by env:
//   PORT, HOST, LOG_LEVEL (default warn, like the server: no per-request logs),
//   BASELINE_METHOD, BASELINE_PATH, BASELINE_STATUS, BASELINE_BODY (JSON text, or empty for no body).
// A 404 status registers no route: the answer then comes from Fastify's not-found path, as on the server.
import Fastify, { type HTTPMethods } from 'fastify';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`baseline: ${name} is required`);
  return value;
}

const method = required('BASELINE_METHOD') as HTTPMethods;
const path = required('BASELINE_PATH');
const status = Number(required('BASELINE_STATUS'));
const bodyText = process.env.BASELINE_BODY ?? '';
// Parsed once: each reply serializes the object, as a real handler does.
const body: unknown = bodyText === '' ? undefined : JSON.parse(bodyText);

const app = Fastify({ logger: { level: process.env.LOG_LEVEL || 'warn' } });

if (status === 404) {
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(body));
} else {
  app.route({ method, url: path, handler: (_request, reply) => reply.code(status).send(body) });
}

const shutdown = () =>
  void app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ port: Number(required('PORT')), host: process.env.HOST || '127.0.0.1' });
