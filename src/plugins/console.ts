import { existsSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pageSecurityHeaders } from './page-headers.js';

/**
 * `<repo>/dist/console`, where `vite build` writes the console: two levels up from this file both as
 * src/plugins/console.ts (tsx) and as dist/plugins/console.js (esbuild's output).
 */
const CONSOLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'console');

/**
 * The console's own policy: its scripts and styles come from this origin only (no inline script, no
 * eval, no CDN), it talks to this origin only, and no other site may frame it (clickjacking).
 */
const SECURITY_HEADERS = pageSecurityHeaders();

/** Vite names every bundled file after its content hash: a year, immutable. */
const HASHED = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/**
 * The admin console (a single-page app) at /console, from the built files in dist/console: hashed
 * assets cached for good, index.html revalidated every time (so a deployment is seen at once), and
 * every path that is not a file answered with index.html (the app routes on the client). Registered
 * only when PORTAL_ADMIN_TOKEN is set, like the /admin surface it drives.
 */
export async function consoleRoutes(app: FastifyInstance, opts: { root?: string } = {}) {
  const root = opts.root ?? CONSOLE_DIR;
  // serve: false: no routes of its own, only reply.sendFile (which refuses paths leaving the root).
  await app.register(fastifyStatic, { root, serve: false });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });

  const sendIndex = (reply: FastifyReply) => {
    if (!existsSync(join(root, 'index.html'))) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('The admin console is not built: run `npm run build` (npm start does), then reload.\n');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
  };

  app.get('/console', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.params['*'];
    const file = resolve(root, path);
    if (path !== '' && file.startsWith(root + sep) && isFile(file)) {
      return HASHED.test(path)
        ? reply.sendFile(path, root, { maxAge: '365d', immutable: true })
        : reply.header('cache-control', 'no-cache').sendFile(path, root, { cacheControl: false });
    }
    // A missing file (a path with an extension) is a 404, not the app: a stale script URL must not get HTML.
    if (extname(path) !== '') return reply.callNotFound();
    return sendIndex(reply);
  });
}

/** What /console answers while PORTAL_ADMIN_TOKEN is unset: how to turn it on. */
const CONSOLE_OFF =
  "Not found: the admin console is off. Set PORTAL_ADMIN_TOKEN (16+ characters) in the server's environment and\n" +
  'restart: the console is then served here, at /console, and you sign in with that token (README.md, Admin console).\n';

/**
 * Without PORTAL_ADMIN_TOKEN there is no console (nor /admin): /console and the paths below it stay 404s, with a
 * body saying how to turn it on, rather than the API's bare "No route".
 */
export async function consoleOffRoutes(app: FastifyInstance) {
  const off = (_request: unknown, reply: FastifyReply) =>
    reply.code(404).headers(SECURITY_HEADERS).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(CONSOLE_OFF);
  app.get('/console', { schema: { hide: true } }, off);
  app.get('/console/*', { schema: { hide: true } }, off);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
