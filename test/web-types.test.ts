// Issue 43 (3): the front ends' API types (web/kit/api-types.ts) are what openapi-typescript makes of the server's
// own /openapi.json today, so a change of the API's schemas fails here until `npm run gen:web-types` is run, and then
// the front ends' type check (`npm run typecheck`: web/console, web/portal) shows what the change broke in them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { WEB_TYPES, webTypes } from '../scripts/web-types.js';

test('web/kit/api-types.ts is generated from the current /openapi.json (npm run gen:web-types)', async () => {
  const committed = readFileSync(WEB_TYPES, 'utf8');
  const current = await webTypes();
  assert.ok(committed === current, 'web/kit/api-types.ts differs from what /openapi.json generates: run `npm run gen:web-types`');
  // The document's paths the front ends call are in it: the admin surface, the public API, the sign-in API.
  for (const path of ['"/admin/workspaces"', '"/v1/clients"', '"/portal/{workspaceId}/api/session"'])
    assert.ok(committed.includes(`${path}: {`), path);
});

test('the package scripts: gen:web-types writes the types, typecheck checks both front ends', () => {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8'));
  assert.equal(scripts['gen:web-types'], 'node --import tsx scripts/web-types.ts');
  assert.equal(scripts.typecheck, 'tsc -p . && tsc -p web/console && tsc -p web/portal');
});
