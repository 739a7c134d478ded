import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harness } from './helpers/harness.js';

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
    '/v1/audit-logs',
    '/v1/webhooks/{event}',
    '/v1/invoices',
    '/v1/invoices/{id}',
    '/v1/invoices/{id}/finalize',
    '/v1/payments',
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
      assert.equal(op.security, undefined, `${method} ${path} uses the global security`);
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
      '/admin/workspaces/{workspaceId}/imports/clients',
      '/admin/workspaces/{workspaceId}/installs',
      '/admin/workspaces/{workspaceId}/installs/{installId}/publish',
      '/admin/workspaces/{workspaceId}/internal-users',
      '/admin/workspaces/{workspaceId}/invoice-templates',
      '/admin/workspaces/{workspaceId}/invoices/{invoiceId}/pay',
      '/admin/workspaces/{workspaceId}/invoices/{invoiceId}/void',
      '/admin/workspaces/{workspaceId}/keys',
      '/admin/workspaces/{workspaceId}/keys/{keyId}',
      '/admin/workspaces/{workspaceId}/outbox',
      '/admin/workspaces/{workspaceId}/prices',
      '/admin/workspaces/{workspaceId}/products',
      '/admin/workspaces/{workspaceId}/products/{productId}',
      '/admin/workspaces/{workspaceId}/sessions',
      '/admin/workspaces/{workspaceId}/sessions/{tokenId}',
      '/admin/workspaces/{workspaceId}/subscription-templates',
      '/admin/workspaces/{workspaceId}/task-templates',
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
