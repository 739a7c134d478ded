import { extname } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { builtDir, servesBuiltPages } from './built-pages.js';
import { pageSecurityHeaders } from './page-headers.js';

const NOT_BUILT = 'The admin console is not built: run `npm run build` (npm start does), then reload.\n';

/**
 * The admin console (a single-page app) at /console, from the built files in dist/console: hashed
 * assets cached for good, index.html revalidated every time (so a deployment is seen at once), and
 * every path that is not a file answered with index.html (the app routes on the client). Registered
 * only when PORTAL_ADMIN_TOKEN is set, like the /admin surface it drives.
 */
export async function consoleRoutes(app: FastifyInstance, opts: { root?: string } = {}) {
  const pages = await servesBuiltPages(app, opts.root ?? builtDir('console'), NOT_BUILT);
  app.get('/console', { schema: { hide: true } }, (_request, reply) => pages.sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.params['*'];
    const file = pages.sendFile(reply, path);
    if (file) return file;
    // A missing file (a path with an extension) is a 404, not the app: a stale script URL must not get HTML.
    if (extname(path) !== '') return reply.callNotFound();
    return pages.sendIndex(reply);
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
  const headers = pageSecurityHeaders();
  const off = (_request: unknown, reply: FastifyReply) =>
    reply.code(404).headers(headers).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(CONSOLE_OFF);
  app.get('/console', { schema: { hide: true } }, off);
  app.get('/console/*', { schema: { hide: true } }, off);
}
