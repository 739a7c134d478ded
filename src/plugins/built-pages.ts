import { statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pageSecurityHeaders } from './page-headers.js';

/**
 * `<repo>/dist/<name>`, where `vite build` writes a front end (dist/console, dist/portal): two levels up from
 * this file both as src/plugins/built-pages.ts (tsx) and as a chunk in dist/cli/ (esbuild's output).
 */
export function builtDir(name: string): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', name);
}

/**
 * The pages' own policy: scripts and styles from this origin only (no inline script, no eval, no CDN), talking to
 * this origin only, and no other site may frame them (clickjacking).
 */
const SECURITY_HEADERS = pageSecurityHeaders();

/** Vite names every bundled file after its content hash: a year, immutable. */
const HASHED = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export interface BuiltPages {
  /** index.html, revalidated every time (a deployment is seen at once); 503 with `notBuilt` while it is missing. */
  sendIndex(reply: FastifyReply, headers?: Record<string, string>): FastifyReply;
  /**
   * The file at `path` (relative to the build) when there is one: hashed assets cached for a year, others
   * revalidated; undefined otherwise (the caller answers the app or a 404).
   */
  sendFile(reply: FastifyReply, path: string): FastifyReply | undefined;
}

/**
 * A single-page app built by Vite into `root`, served by the routes of `app` (an encapsulated scope): every answer
 * of the scope carries the pages' security headers. Registers @fastify/static without routes of its own (only
 * reply.sendFile, which refuses paths leaving the root), sending a file's compressed copy where the build made one.
 */
export async function servesBuiltPages(app: FastifyInstance, root: string, notBuilt: string): Promise<BuiltPages> {
  // preCompressed: a file's .br or .gz copy beside it (web/kit/vite.ts writes them) when the browser accepts it.
  await app.register(fastifyStatic, { root, serve: false, preCompressed: true });
  // An index sent with headers of its own (a portal's policy naming the apps it frames) keeps them.
  const own = new WeakSet<FastifyReply>();
  app.addHook('onSend', async function pageHeaders(_request, reply, payload) {
    if (!own.has(reply)) reply.headers(SECURITY_HEADERS);
    return payload;
  });
  return {
    sendIndex(reply, headers) {
      if (!isFile(join(root, 'index.html'))) {
        return reply.code(503).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(notBuilt);
      }
      if (headers) {
        own.add(reply);
        reply.headers(headers);
      }
      return reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
    },
    sendFile(reply, path) {
      const file = resolve(root, path);
      if (path === '' || !file.startsWith(root + sep) || !isFile(file)) return undefined;
      return HASHED.test(path)
        ? reply.sendFile(path, root, { maxAge: '365d', immutable: true })
        : reply.header('cache-control', 'no-cache').sendFile(path, root, { cacheControl: false });
    },
  };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
