// Rule (issue 42, point 13): `/` is a small HTML page, not the API's JSON 404: it links the portal (the workspace's,
// when the deployment has one), the API reference (/docs) and the admin console (/console), with the console's
// security headers and Content-Security-Policy, and no inline script or style.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestWorkspace } from './helpers/factories.js';
import { BACKENDS, TEST_ADMIN_TOKEN, harness } from './helpers/harness.js';
import { pageSecurityHeaders } from '../src/plugins/page-headers.js';

/** The page's links, in order. */
const links = (html: string) => [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]);

for (const backend of BACKENDS) {
  test(`GET / is a landing page linking the portal, /docs and /console [${backend}]`, async (t) => {
    const h = await harness(t, backend, { env: { PORTAL_ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
    const none = await h.app.inject('/');
    assert.equal(none.statusCode, 200);
    assert.deepEqual(links(none.body), ['/docs', '/openapi.json', '/console'], 'no workspace: no portal to link');
    assert.match(none.body, /each workspace's is at <code>\/portal\/\{workspaceId\}\/<\/code>/);

    const acme = await createTestWorkspace(h, 'Acme');
    const one = await h.app.inject('/');
    assert.equal(one.statusCode, 200);
    assert.deepEqual(links(one.body), [`/portal/${acme.workspaceId}/`, '/docs', '/openapi.json', '/console']);
    for (const [name, value] of Object.entries(pageSecurityHeaders())) assert.equal(one.headers[name], value, name);
    assert.equal(one.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(one.headers['cache-control'], 'no-store');
    assert.match(one.headers['content-security-policy'] as string, /script-src 'self'; style-src 'self';/);
    // Nothing the policy would block: no script, no style, no inline handler or style attribute.
    assert.doesNotMatch(one.body, /<script|<style|style=|\son[a-z]+=/i);
    // Accessible as plain HTML: a language, a title, a viewport, one h1 inside main.
    assert.match(one.body, /^<!doctype html>\n<html lang="en">/);
    assert.match(one.body, /<title>Portal Platform<\/title>/);
    assert.match(one.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.deepEqual([...one.body.matchAll(/<h1>/g)].length, 1);
    assert.match(one.body, /<main>\n<h1>Portal Platform<\/h1>/);
    for (const target of links(one.body)) {
      const answer = await h.app.inject(target);
      assert.notEqual(answer.statusCode, 404, `${target} is there`);
    }

    await createTestWorkspace(h, 'Beta');
    assert.deepEqual(links((await h.app.inject('/')).body), ['/docs', '/openapi.json', '/console'], 'several: where each one is');
    const head = await h.app.inject({ method: 'HEAD', url: '/' });
    assert.deepEqual([head.statusCode, head.body], [200, '']);
  });
}
