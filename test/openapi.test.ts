import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import ts from 'typescript';
import { BACKENDS, harness } from './helpers/harness.js';

test('GET /openapi.json: OpenAPI 3.1 listing every route with its error responses and the security scheme', async (t) => {
  const h = await harness(t, 'sqlite');
  const res = await h.app.inject('/openapi.json');
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(doc.components.securitySchemes.apiKey, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-KEY',
    description: 'workspace or app API key',
  });
  assert.deepEqual(doc.components.securitySchemes.bearerToken, {
    type: 'http',
    scheme: 'bearer',
    description: 'token from POST /v1/token (one hour, an app key’s rights)',
  });
  assert.deepEqual(doc.security, [{ apiKey: [] }, { bearerToken: [] }]);
  assert.ok(doc.components.schemas.Error, 'shared error schema');
  const expected = [
    '/v1/me',
    '/v1/workspaces',
    '/v1/clients',
    '/v1/clients/{id}',
    '/v1/clients/{id}/invite',
    '/v1/companies',
    '/v1/companies/{id}',
    '/v1/internal-users',
    '/v1/internal-users/{id}',
    '/v1/internal-users/{id}/notification-preferences',
    '/v1/custom-fields',
    '/v1/custom-fields/{id}/options',
    '/v1/installs',
    '/v1/installs/{installId}',
    '/v1/installs/{installId}/connections',
    '/v1/installs/{installId}/notification-settings',
    '/v1/notifications',
    '/v1/notifications/{id}',
    '/v1/notifications/{id}/read',
    '/v1/notifications/{id}/unread',
    '/v1/app-api-resources',
    '/v1/app-api-resources/{name}',
    '/v1/app-builder-secret',
    '/v1/audit-logs',
    '/v1/webhooks/{event}',
    '/v1/invoices',
    '/v1/invoices/{id}',
    '/v1/invoices/{id}/finalize',
    '/v1/invoices/{id}/mark-paid',
    '/v1/invoices/{id}/void',
    '/v1/invoices/{id}/pdf',
    '/v1/payments',
    '/v1/payment-methods',
    '/v1/payment-methods/{id}',
    '/v1/invoices/{id}/pay',
    '/v1/refunds',
    '/v1/refunds/{id}',
    '/v1/test-clock',
    '/v1/test-clock/advance',
    '/v1/subscriptions',
    '/v1/subscriptions/{id}',
    '/v1/subscriptions/{id}/cancel',
    '/v1/products',
    '/v1/products/{id}',
    '/v1/prices',
    '/v1/prices/{id}',
    '/v1/invoice-templates',
    '/v1/subscription-templates',
    '/v1/message-channels',
    '/v1/message-channels/{id}',
    '/v1/messages',
    '/v1/messages/stream',
    '/v1/tasks',
    '/v1/tasks/{id}',
    '/v1/task-templates',
    '/v1/task-templates/{id}',
    '/v1/notes',
    '/v1/notes/{id}',
    '/v1/channels/files',
    '/v1/channels/files/{id}',
    '/v1/files/{fileType}',
    '/v1/file',
    '/v1/files',
    '/v1/files/{id}',
    '/v1/files/{id}/download',
    '/v1/files/{id}/download-url',
    '/v1/files/{id}/permissions/',
    '/v1/files/archive',
    '/v1/files/batch-delete',
    '/v1/forms',
    '/v1/forms/{id}',
    '/v1/forms/{id}/form-responses',
    '/v1/form-responses',
    '/v1/form-responses/{id}',
    '/v1/form-responses/{id}/complete',
    '/v1/contract-templates',
    '/v1/contract-templates/{id}',
    '/v1/contracts',
    '/v1/contracts/{id}',
    '/v1/contracts/{id}/pdf',
    '/v1/contracts/{id}/sign',
  ];
  assert.deepEqual(
    Object.keys(doc.paths)
      .filter((p) => p.startsWith('/v1/'))
      .sort(),
    [...expected, '/v1/token'].sort(),
    'every route is listed',
  );
  for (const path of expected) {
    for (const [method, op] of Object.entries<any>(doc.paths[path])) {
      for (const status of ['200', '400', '401', '404', '429', '500', '503'])
        assert.ok(op.responses[status], `${method} ${path} documents ${status}`);
      // Keys and bearer tokens (the global security), and a person's portal cookie where its policy allows one.
      assert.deepEqual(
        op.security,
        op['x-policy'].portal ? [{ apiKey: [] }, { bearerToken: [] }, { portalSession: [] }] : undefined,
        `${method} ${path}: its credentials`,
      );
      assert.ok(op.summary, `${method} ${path} has a summary`);
    }
  }
  for (const [path, method] of [
    ['/v1/clients', 'post'],
    ['/v1/clients/{id}', 'patch'],
    ['/v1/companies', 'post'],
  ]) {
    for (const status of ['409', '413', '415'])
      assert.ok(doc.paths[path][method].responses[status], `${method} ${path} documents ${status}`);
  }
  const create = doc.paths['/v1/notifications'].post.responses['202'];
  assert.equal(create.content, undefined, 'the 202 of a notification that preferences stopped has no body');
  assert.match(create.description, /preferences disable every requested target/);
  const token = doc.paths['/v1/token'].post;
  assert.deepEqual(token.security, [{ apiKey: [] }], 'tokens are minted with an API key only');
  assert.deepEqual(
    Object.keys(token.responses).sort(),
    ['200', '400', '401', '403', '409', '422', '429', '500', '503'],
    'Idempotency-Key: 409, 422',
  );
  assert.deepEqual(Object.keys(token.responses['200'].content['application/json'].schema.properties).sort(), ['token', 'tokenExpiresAt']);
  for (const status of ['400', '401', '403']) {
    assert.equal(
      token.responses[status].content['application/json'].schema.$ref,
      '#/components/schemas/Error',
      `${status} has the error body`,
    );
  }
  assert.equal(token.responses['400'].description, 'A body was sent: this operation takes none');
  assert.equal(
    Object.keys(doc.paths).some((p) => p.startsWith('/admin')),
    false,
    'no admin surface without PORTAL_ADMIN_TOKEN',
  );
  assert.deepEqual(doc.paths['/healthz'].get.security, [], 'health checks are public');
  assert.equal(
    doc.tags.some((tag: { name: string }) => tag.name === 'admin'),
    false,
    'no admin tag without the admin surface',
  );
  assert.equal(doc.components.securitySchemes.adminToken, undefined, 'nor its security scheme');
  const used = new Set(Object.values<Record<string, any>>(doc.paths).flatMap((item) => Object.values<any>(item).flatMap((op) => op.tags)));
  assert.deepEqual(
    doc.tags.map((tag: { name: string }) => tag.name).filter((name: string) => !used.has(name)),
    [],
    'every declared tag has operations',
  );
  assert.equal(doc.paths['/openapi.json'], undefined, 'the document itself is hidden');
});

test('with PORTAL_ADMIN_TOKEN the admin routes are documented with the admin token scheme', async (t) => {
  const h = await harness(t, 'sqlite', { env: { PORTAL_ADMIN_TOKEN: 'a-very-long-admin-token' } });
  const doc = (await h.app.inject('/openapi.json')).json();
  assert.deepEqual(
    Object.keys(doc.paths)
      .filter((p) => p.startsWith('/admin/'))
      .sort(),
    [
      '/admin/session',
      '/admin/workspaces',
      '/admin/workspaces/{workspaceId}',
      '/admin/workspaces/{workspaceId}/contract-templates',
      '/admin/workspaces/{workspaceId}/exports/clients',
      '/admin/workspaces/{workspaceId}/forms',
      '/admin/workspaces/{workspaceId}/forms/{id}',
      '/admin/workspaces/{workspaceId}/imports/clients',
      '/admin/workspaces/{workspaceId}/installs',
      '/admin/workspaces/{workspaceId}/installs/{installId}/portal-key',
      '/admin/workspaces/{workspaceId}/installs/{installId}/publish',
      '/admin/workspaces/{workspaceId}/internal-users',
      '/admin/workspaces/{workspaceId}/internal-users/{id}',
      '/admin/workspaces/{workspaceId}/invoice-templates',
      '/admin/workspaces/{workspaceId}/invoices/{invoiceId}/pay',
      '/admin/workspaces/{workspaceId}/invoices/{invoiceId}/void',
      '/admin/workspaces/{workspaceId}/keys',
      '/admin/workspaces/{workspaceId}/keys/{keyId}',
      '/admin/workspaces/{workspaceId}/logo',
      '/admin/workspaces/{workspaceId}/outbox',
      '/admin/workspaces/{workspaceId}/prices',
      '/admin/workspaces/{workspaceId}/products',
      '/admin/workspaces/{workspaceId}/products/{productId}',
      '/admin/workspaces/{workspaceId}/qa/agent-tokens',
      '/admin/workspaces/{workspaceId}/qa/principals',
      '/admin/workspaces/{workspaceId}/qa/principals/{principalId}',
      '/admin/workspaces/{workspaceId}/qa/principals/{principalId}/tokens',
      '/admin/workspaces/{workspaceId}/sessions',
      '/admin/workspaces/{workspaceId}/sessions/{tokenId}',
      '/admin/workspaces/{workspaceId}/subscription-templates',
      '/admin/workspaces/{workspaceId}/task-templates',
      '/admin/workspaces/{workspaceId}/test-clock',
      '/admin/workspaces/{workspaceId}/test-clock/advance',
      '/admin/workspaces/{workspaceId}/tokens',
      '/admin/workspaces/{workspaceId}/webhook-deliveries',
      '/admin/workspaces/{workspaceId}/webhook-deliveries/replay',
      '/admin/workspaces/{workspaceId}/webhook-deliveries/{deliveryId}/replay',
      '/admin/workspaces/{workspaceId}/webhooks',
      '/admin/workspaces/{workspaceId}/webhooks/{endpointId}',
      '/admin/workspaces/{workspaceId}/webhooks/{endpointId}/disable',
      '/admin/workspaces/{workspaceId}/webhooks/{endpointId}/enable',
      '/admin/workspaces/{workspaceId}/webhooks/{endpointId}/rotate-secret',
    ],
  );
  assert.deepEqual(doc.paths['/admin/workspaces/{workspaceId}/sessions'].post.security, [{ adminToken: [] }]);
  assert.deepEqual(doc.paths['/admin/workspaces/{workspaceId}/sessions/{tokenId}'].delete.security, [{ adminToken: [] }]);
  assert.equal(doc.components.securitySchemes.adminToken.scheme, 'bearer');
});

/** What every response of the reference page carries: the console's headers but for data: images and the UI's one <style> by hash. */
const DOCS_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const securityHeaders = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(DOCS_HEADERS).map((name) => [name, headers[name]]));

/** The files a page loads: each `src` and `href`, resolved against the page's URL (a path). */
function loadedBy(html: string, page: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map(([, link]) => new URL(link, `http://docs.test${page}`).pathname);
}

test('GET /docs and /docs/: the reference page with a CSP and no framing; nothing inline; every file it loads carries the same headers', async (t) => {
  const h = await harness(t, 'sqlite');
  for (const page of ['/docs', '/docs/']) {
    const res = await h.app.inject(page);
    assert.equal(res.statusCode, 200, page);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', page);
    assert.deepEqual(securityHeaders(res.headers), DOCS_HEADERS, page);
    // Under this CSP an inline script, style element, style attribute or event handler would not run: there is none.
    const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 3, page);
    for (const [tag, attributes, content] of scripts) assert.deepEqual([/\ssrc="/.test(attributes), content.trim()], [true, ''], tag);
    assert.doesNotMatch(res.body, /<style|\sstyle=|\son[a-z]+=|javascript:/i, page);
    assert.deepEqual(loadedBy(res.body, page), [
      '/docs/static/swagger-ui.css',
      '/docs/static/index.css',
      '/docs/static/favicon-32x32.png',
      '/docs/static/favicon-16x16.png',
      '/docs/static/swagger-ui-bundle.js',
      '/docs/static/swagger-ui-standalone-preset.js',
      '/docs/static/swagger-initializer.js',
    ]);
  }
  const types: Record<string, string> = {
    css: 'text/css; charset=utf-8',
    png: 'image/png',
    js: 'application/javascript; charset=utf-8',
  };
  for (const file of loadedBy((await h.app.inject('/docs/')).body, '/docs/')) {
    const res = await h.app.inject(file);
    assert.equal(res.statusCode, 200, file);
    assert.equal(res.headers['content-type'], types[file.split('.').pop() ?? ''], file);
    assert.deepEqual(securityHeaders(res.headers), DOCS_HEADERS, file);
  }
});

test("the reference page's other routes carry the same headers: the old index.html redirect, the document as JSON and YAML, the OAuth2 redirect page", async (t) => {
  const h = await harness(t, 'sqlite');
  const redirect = await h.app.inject('/docs/static/index.html');
  assert.deepEqual([redirect.statusCode, redirect.headers.location, redirect.body], [302, '/docs/', '']);
  assert.deepEqual(securityHeaders(redirect.headers), DOCS_HEADERS);

  const json = await h.app.inject('/docs/json');
  assert.equal(json.statusCode, 200);
  assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(json.json(), (await h.app.inject('/openapi.json')).json());
  assert.deepEqual(securityHeaders(json.headers), DOCS_HEADERS);

  const yaml = await h.app.inject('/docs/yaml');
  assert.equal(yaml.statusCode, 200);
  assert.equal(yaml.headers['content-type'], 'application/x-yaml');
  assert.match(yaml.body, /^openapi: 3\.1\.0$/m);
  assert.deepEqual(securityHeaders(yaml.headers), DOCS_HEADERS);

  const oauth = await h.app.inject('/docs/static/oauth2-redirect.html');
  assert.equal(oauth.statusCode, 200);
  assert.equal(oauth.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(oauth.body, '<!doctype html>\n<html lang="en-US">\n<body>\n<script src="oauth2-redirect.js"></script>\n</body>\n</html>\n');
  assert.deepEqual(securityHeaders(oauth.headers), DOCS_HEADERS);
});

test("the page's headers stay on the page: /openapi.json and the API answer without them", async (t) => {
  const h = await harness(t, 'sqlite');
  const none = Object.fromEntries(Object.keys(DOCS_HEADERS).map((name) => [name, undefined]));
  const doc = await h.app.inject('/openapi.json');
  assert.equal(doc.statusCode, 200);
  assert.deepEqual(securityHeaders(doc.headers), none);
  const api = await h.app.inject('/v1/me');
  assert.equal(api.statusCode, 401);
  assert.deepEqual(securityHeaders(api.headers), none);
});

/**
 * The response fields that may be null: those the specification types as "or null" / "nullable"
 * (portal-platform-api.md) and nothing else. Every other optional field without a value is left out of
 * the answer (issue 23: absent is absent, as the SDK declares them `field?: type`).
 */
const NULLABLE_BY_THE_SPECIFICATION = new Set(['Client.firstLoginDate', 'Client.lastLoginDate', 'AppConnection.clientIds']);

test('absent is absent: no /v1 answer declares a null field but those the specification makes nullable', async (t) => {
  const h = await harness(t, 'sqlite');
  const doc = (await h.app.inject('/openapi.json')).json();
  const found = new Set<string>();
  // Walks a response schema; `owner` is the named schema (title or component) the property belongs to.
  const walk = (schema: Record<string, any> | undefined, owner: string, where: string) => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.$ref) return walk(doc.components.schemas[schema.$ref.split('/').pop()], schema.$ref.split('/').pop(), where);
    const name = schema.title ?? owner;
    for (const [key, property] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
      const types = Array.isArray(property.type) ? property.type : [property.type];
      const nullable = types.includes('null') || [...(property.anyOf ?? []), ...(property.oneOf ?? [])].some((s) => s.type === 'null');
      if (nullable && !NULLABLE_BY_THE_SPECIFICATION.has(`${name}.${key}`)) found.add(`${where}: ${name}.${key}`);
      walk(property, name, where);
    }
    if (schema.items) walk(schema.items, name, where);
    for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(part, name, where);
  };
  for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
    if (!path.startsWith('/v1')) continue;
    for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses ?? {})) {
        if (status.startsWith('2')) walk(response.content?.['application/json']?.schema, '(answer)', `${method.toUpperCase()} ${path}`);
      }
    }
  }
  assert.deepEqual([...found], []);
});

/** The official SDK's operations: each DefaultService method's name, HTTP method and path, read from its source. */
function sdkOperations(): { name: string; method: string; path: string }[] {
  const file = join(process.cwd(), 'node_modules/@assembly-js/node-sdk/dist/codegen/api/services/DefaultService.js');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const service = source.statements.find(ts.isClassDeclaration);
  assert.ok(service, `a DefaultService class in ${file}`);
  const operations: { name: string; method: string; path: string }[] = [];
  for (const member of service.members) {
    if (!ts.isMethodDeclaration(member) || !member.body) continue;
    // `return __request(OpenAPI, { method: 'GET', url: '/v1/…', … })`: the options' string properties.
    const found: Record<string, string> = {};
    const visit = (node: ts.Node) => {
      if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && ts.isStringLiteral(node.initializer))
        found[node.name.text] = node.initializer.text;
      ts.forEachChild(node, visit);
    };
    visit(member.body);
    operations.push({ name: member.name.getText(source), method: found.method.toLowerCase(), path: found.url });
  }
  return operations;
}

/** Every operation of the document, the admin surface's included. */
async function everyOperation(t: Parameters<typeof harness>[0], env: Record<string, string> = {}) {
  const h = await harness(t, 'sqlite', { env: { PORTAL_ADMIN_TOKEN: 'a-very-long-admin-token', ...env } });
  const doc = (await h.app.inject('/openapi.json')).json();
  const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    Object.entries<Record<string, any>>(item).map(([method, operation]) => ({ path, method, operation })),
  );
  return { h, doc, operations };
}

test("issue 29 (11): every operation has an operationId, all unique, the official SDK's method name wherever the SDK has the operation", async (t) => {
  const { operations } = await everyOperation(t);
  assert.deepEqual(
    operations
      .filter(({ operation }) => typeof operation.operationId !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(operation.operationId))
      .map(({ method, path }) => `${method} ${path}`),
    [],
    'a camelCase operationId on every operation',
  );
  const ids = operations.map(({ operation }) => operation.operationId);
  assert.deepEqual(
    ids.filter((id, i) => ids.indexOf(id) !== i),
    [],
    'no operationId twice',
  );
  const sdk = sdkOperations();
  assert.equal(sdk.length, 76, "the SDK's DefaultService methods (3.19)");
  assert.deepEqual(
    sdk.map(({ method, path }) => operations.find((op) => op.method === method && op.path === path)?.operation.operationId),
    sdk.map(({ name }) => name),
    'the operation at each SDK method’s path and method carries its name',
  );
  // Outside the SDK one pattern: the admin surface's operations start with `admin`, and only they do.
  for (const { path, method, operation } of operations)
    assert.equal(operation.operationId.startsWith('admin'), path.startsWith('/admin/'), `${method} ${path}: ${operation.operationId}`);
});

test('issue 29 (11): every operation has a summary, a description and declared tags; every tag is declared once, with a description, and used', async (t) => {
  const { doc, operations } = await everyOperation(t);
  for (const { path, method, operation } of operations) {
    assert.ok(operation.summary, `${method} ${path} has a summary`);
    assert.ok(operation.description, `${method} ${path} has a description`);
    assert.ok(operation.tags?.length, `${method} ${path} has a tag`);
  }
  const declared = doc.tags.map((tag: { name: string }) => tag.name);
  assert.deepEqual(declared, [...new Set(declared)], 'each tag declared once');
  for (const tag of doc.tags) assert.ok(tag.description, `tag ${tag.name} has a description`);
  assert.deepEqual(
    [...new Set(operations.flatMap(({ operation }) => operation.tags))].sort(),
    [...declared].sort(),
    'the tags used are the tags declared',
  );
});

test('issue 29 (11): servers is PORTAL_URL; no keyword of the service’s own is published but as an x- extension', async (t) => {
  const { doc } = await everyOperation(t, { PORTAL_URL: 'https://portal.acme.test/' });
  assert.deepEqual(doc.servers, [{ url: 'https://portal.acme.test', description: 'this service (PORTAL_URL)' }]);
  // The free-form bodies' byte bound (plugins/validation.ts) is published as x-maxJsonBytes, never as a bare keyword.
  const keys = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) {
        keys.add(key);
        walk(inner);
      }
  };
  walk(doc.paths);
  assert.equal(keys.has('maxJsonBytes'), false);
  const context = doc.paths['/v1/audit-logs'].post.requestBody.content['application/json'].schema.properties.context;
  assert.equal(context['x-maxJsonBytes'], 16_384);
  assert.equal(doc.paths['/v1/webhooks/{event}'].post.requestBody.content['application/json'].schema['x-maxJsonBytes'], 16_384);
});

test("issue 29 (11): every operation that takes a body documents 413 and 415; every error is documented as the JSON error body, downloads' and the CSV export's included", async (t) => {
  const { operations } = await everyOperation(t);
  const taking = operations.filter(({ operation }) => operation.requestBody);
  assert.ok(taking.length > 40);
  for (const { path, method, operation } of taking) {
    for (const status of ['413', '415']) assert.ok(operation.responses[status], `${method} ${path} documents ${status}`);
  }
  // Every error is the JSON error body, whatever a success answers: a download's bytes, the CSV export.
  for (const { path, method, operation } of operations) {
    for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
      if (status.startsWith('2') || status.startsWith('3')) continue; // answers and redirects (OpenID sign-in's start)
      assert.deepEqual(Object.keys(response.content ?? {}), ['application/json'], `${method} ${path} ${status}`);
      const { schema } = response.content['application/json'];
      // The error body (a 429 may also be the daily quota's).
      assert.equal(schema.$ref ?? schema.anyOf?.[0].$ref, '#/components/schemas/Error', `${method} ${path} ${status}`);
    }
  }
  for (const [path, type] of [
    ['/v1/files/{id}/download', 'application/octet-stream'],
    ['/files/downloads/{id}', 'application/octet-stream'],
    ['/admin/workspaces/{workspaceId}/exports/clients', 'text/csv'],
  ]) {
    const { responses } = operations.find((op) => op.path === path && op.method === 'get')?.operation ?? {};
    assert.deepEqual(Object.keys(responses['200'].content), [type], `${path}: the content`);
    assert.ok(Object.keys(responses).length > 4, `${path}: its errors`);
  }
});

// Rule (issue 42, point 12): every operation that takes `Idempotency-Key` declares what the key can answer: 422
// `idempotency_key_reused` (the key with another request) and 409 (the first still running), with the error body;
// every POST of /v1 takes it, and no operation that does not take it declares them. Walked over the whole document,
// the admin surface included, so an operation added later is held to it.
for (const backend of BACKENDS) {
  test(`issue 42 (12), ${backend}: every operation taking Idempotency-Key declares its 422 and 409`, async (t) => {
    const h = await harness(t, backend, { env: { PORTAL_ADMIN_TOKEN: 'a-very-long-admin-token' } });
    const doc = (await h.app.inject('/openapi.json')).json();
    const error = { $ref: '#/components/schemas/Error' };
    let taking = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const what = `${method.toUpperCase()} ${path}`;
        const takes = (op.parameters ?? []).some(
          (p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
        );
        if (path.startsWith('/v1/') && method === 'post') assert.ok(takes, `${what} takes Idempotency-Key`);
        if (!takes) {
          assert.equal(op.responses['422'], undefined, `${what} takes no key: no 422`);
          continue;
        }
        taking++;
        assert.deepEqual(
          op.responses['422'],
          {
            description: 'This Idempotency-Key was used with another request (method, URL or body)',
            content: { 'application/json': { schema: error } },
          },
          `${what}: its 422`,
        );
        assert.match(op.responses['409'].description, /Idempotency-Key is still running/, `${what}: its 409`);
        assert.deepEqual(op.responses['409'].content, { 'application/json': { schema: error } }, `${what}: its 409's body`);
      }
    }
    assert.ok(taking >= 30, `${taking} operations take Idempotency-Key`);
    assert.match(doc.components.schemas.Error.properties.code.description, /idempotency_key_reused/);
  });
}

/** The methods a 405 lists, in this order (src/plugins/errors.ts): HEAD wherever GET is. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

for (const backend of BACKENDS) {
  test(`issue 29 (11), ${backend}: a method a documented path does not have is a 405 with Allow listing its methods (RFC 9110), with or without credentials`, async (t) => {
    const h = await harness(t, backend, { env: { PORTAL_ADMIN_TOKEN: 'a-very-long-admin-token' } });
    const ws = await h.workspace();
    const doc = (await h.app.inject('/openapi.json')).json();
    const templates = Object.entries<Record<string, unknown>>(doc.paths).map(([path, item]) => ({
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      methods: Object.keys(item).map((method) => method.toUpperCase()),
    }));
    let checked = 0;
    for (const path of Object.keys(doc.paths)) {
      const url = path.replace(/\{[^}]+\}/g, '0c9a3c4e-2f1b-4d6a-9a51-0b3f6c7d8e9f');
      // What the router serves at this URL: every documented path it matches (/v1/files/{id} and /v1/files/{fileType} both).
      const served = new Set(templates.filter(({ pattern }) => pattern.test(url)).flatMap(({ methods }) => methods));
      if (served.has('GET')) served.add('HEAD');
      const allow = METHOD_ORDER.filter((method) => served.has(method));
      const wrong = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((method) => !served.has(method));
      assert.ok(wrong, path);
      for (const headers of [{}, { 'x-api-key': ws.apiKey }]) {
        const res: LightMyRequestResponse = await h.app.inject({ method: wrong as 'PUT', url, headers });
        assert.equal(res.statusCode, 405, `${wrong} ${url}`);
        assert.equal(res.headers.allow, allow.join(', '), `${wrong} ${url}`);
        assert.ok(res.headers['x-request-id'], `${wrong} ${url}`);
        assert.deepEqual(res.json(), {
          code: 'method_not_allowed',
          message: `Method ${wrong} is not allowed on ${url}; it allows ${allow.join(', ')}.`,
          data: null,
        });
      }
      checked++;
    }
    assert.ok(checked > 90, `${checked} paths`);
    // A path no route serves stays a 404, whatever the method; so does /admin without PORTAL_ADMIN_TOKEN (below).
    const unknown = await h.app.inject({ method: 'PUT', url: '/v1/nothing-here' });
    assert.deepEqual(
      [unknown.statusCode, unknown.headers.allow, unknown.json()],
      [404, undefined, { code: 'not_found', message: 'No route PUT /v1/nothing-here.', data: null }],
    );
    // The query string is not part of the path.
    const query = await h.app.inject({ method: 'DELETE', url: '/v1/clients?limit=5' });
    assert.deepEqual([query.statusCode, query.headers.allow], [405, 'GET, HEAD, POST']);
  });
}

test('without PORTAL_ADMIN_TOKEN an /admin path is a 404 for every method, not a 405: the surface does not exist', async (t) => {
  const h = await harness(t, 'sqlite');
  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    const res = await h.app.inject({ method, url: '/admin/workspaces' });
    assert.deepEqual([res.statusCode, res.headers.allow, res.json().code], [404, undefined, 'not_found'], method);
  }
});
