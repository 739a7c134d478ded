import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harness } from './helpers/harness.js';

test('GET /openapi.json: OpenAPI 3.1 listing every route with its error responses and the security scheme', async (t) => {
  const h = await harness(t, 'sqlite');
  const res = await h.app.inject('/openapi.json');
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'workspace or app API key' });
  assert.deepEqual(doc.security, [{ apiKey: [] }]);
  assert.ok(doc.components.schemas.Error, 'shared error schema');
  const routes = h.app.printRoutes({ commonPrefix: false });
  for (const path of ['/v1/me', '/v1/workspaces']) {
    assert.ok(routes.includes(path.split('/').pop()!), path);
    const op = doc.paths[path].get;
    for (const status of ['200', '400', '401', '404', '429', '500', '503']) assert.ok(op.responses[status], `${path} documents ${status}`);
    assert.equal(op.security, undefined, `${path} uses the global security`);
  }
  assert.deepEqual(doc.paths['/healthz'].get.security, [], 'health checks are public');
  assert.equal(doc.paths['/openapi.json'], undefined, 'the document itself is hidden');
});

test('GET /docs serves the API reference page', async (t) => {
  const h = await harness(t, 'sqlite');
  const res = await h.app.inject('/docs/');
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
});
