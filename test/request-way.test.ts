// docs/ARCHITECTURE.md, "A request's way": the hooks each kind of request passes, in order, are read off the
// built service's routes (Fastify's printRoutes) and must be the ones the document lists, so that the section
// stays true as plugins change. On a difference the test prints the block to paste.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/** One route of each kind of request: the /v1 API (a read, a write), the admin surface, the sign-in API, signed URLs, health. */
const ROUTES: readonly [method: string, path: string][] = [
  ['GET', '/v1/clients'],
  ['POST', '/v1/clients'],
  ['GET', '/admin/workspaces'],
  ['POST', '/portal/:workspaceId/api/sign-in/password'],
  ['GET', '/portal/:workspaceId/api/session'],
  ['PUT', '/files/uploads/:id'],
  ['GET', '/healthz'],
];
const PHASES = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse'];

/** Every route's hooks from printRoutes' tree (without a common prefix: each node is one path segment or more). */
function hooksByRoute(tree: string, method: string): Map<string, Map<string, string[]>> {
  const routes = new Map<string, Map<string, string[]>>();
  const stack: string[] = [];
  let current: Map<string, string[]> | undefined;
  for (const line of tree.split('\n')) {
    const node = /^([│ ]*)(?:[└├]── )?(.+?) \(([A-Z, ]+)\)$/.exec(line);
    if (node) {
      const depth = node[1].length / 4;
      stack.length = depth;
      stack[depth] = node[2];
      current = new Map();
      if (node[3].split(', ').includes(method)) routes.set(stack.join(''), current);
      continue;
    }
    const hook = /• \((\w+)\) (\[.*\])$/.exec(line);
    if (hook && current)
      current.set(
        hook[1],
        (JSON.parse(hook[2]) as string[]).map((name) => name.replace('()', '')),
      );
  }
  return routes;
}

test('docs/ARCHITECTURE.md lists the hooks every kind of request passes, as the service has them', async (t) => {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', PORTAL_ADMIN_TOKEN: 'request-way-admin-token', LOG_LEVEL: 'error' });
  const app = await buildApp(config, { webhooks: false, subscriptionPollMs: false });
  t.after(() => app.close());
  await app.ready();
  const lines = ROUTES.map(([method, path]) => {
    const hooks = hooksByRoute(app.printRoutes({ includeHooks: true, commonPrefix: false, method }), method).get(path);
    assert.ok(hooks, `${method} ${path} is a route`);
    const phases = PHASES.filter((phase) => hooks.has(phase)).map((phase) => `${phase}: ${hooks.get(phase)?.join(', ')}`);
    return `${method} ${path}\n  ${phases.join('\n  ')}`;
  });
  const anonymous = lines.filter((line) => /anonymous|: ,|, ,/.test(line));
  assert.deepEqual(anonymous, [], 'every hook has a name');
  const expected = `\`\`\`\n${lines.join('\n')}\n\`\`\``;
  const doc = readFileSync(join('docs', 'ARCHITECTURE.md'), 'utf8');
  const block = /<!-- request-way: generated -->\n([\s\S]*?)\n<!-- \/request-way -->/.exec(doc)?.[1];
  assert.equal(block, expected, `paste into docs/ARCHITECTURE.md between the request-way markers:\n${expected}`);
});
