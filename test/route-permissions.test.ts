// Every operation of the OpenAPI document, for every kind of principal: the default permission rules of
// docs/api.md (Permissions) hold. What an operation allows is read from its `x-policy` (src/plugins/openapi.ts,
// policyOf), so a route added later is walked without anyone listing it here.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { BACKENDS, type Backend, adminHarness } from './helpers/harness.js';
import {
  type Operation,
  PRINCIPALS,
  type PrincipalName,
  REFUSED,
  type World,
  isPortalPerson,
  rulesOf,
  openapiDocument,
  operationsOf,
  principalWorld,
  sampleOf,
} from './helpers/principal-world.js';

const STAFF: readonly PrincipalName[] = ['staff session', 'limited staff session'];

/** The operations only apps (and whoever holds a key) call: a person signed in to the portal gets 403. */
const APPS_ONLY = [
  'DELETE /v1/app-api-resources/{name}',
  'GET /v1/app-api-resources',
  'GET /v1/app-api-resources/{name}',
  'GET /v1/installs/{installId}/notification-settings',
  'PATCH /v1/installs/{installId}/notification-settings',
  'POST /v1/app-builder-secret',
  'POST /v1/audit-logs',
  'POST /v1/installs/{installId}/connections',
  'POST /v1/installs/{installId}/notification-settings',
  'POST /v1/token',
  'POST /v1/webhooks/{event}',
  'PUT /v1/app-api-resources/{name}',
];

const ADMIN_REFUSED = {
  code: 'unauthorized',
  message: 'Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>, or sign in to the console.',
  data: null,
};

/** Whether the principal sees this workspace's object of that resource (the repositories' narrowing, lib/access.ts). */
function sees(principal: PrincipalName, resource: string): boolean {
  // The client, its company, the client's message and file channels, its file, and its form response and contract:
  // all in the client's company.
  const inCompany = ['clients', 'companies', 'message-channels', 'channels', 'files', 'form-responses', 'contracts'].includes(resource);
  if (principal === 'other workspace key') return false;
  if (principal === 'limited staff session') return !inCompany; // limited to the other company
  if (principal === 'client session') return inCompany; // itself, its company, its channels, its file, form response and contract (the other routes are closed to it)
  return true;
}

/** Walks one /v1 operation for every principal. */
async function walkV1(w: World, op: Operation) {
  const write = op.method !== 'GET' && op.method !== 'HEAD';
  const resource = op.path.split('/')[2];
  // An `{id}` names this workspace's object of the resource; any other path parameter gets a random UUID (404 for all).
  // `{event}` (POST /v1/webhooks/{event}) is a name the caller chooses, not an object that may be absent.
  const params = (op.path.match(/\{[^}]+\}/g) ?? []).filter((p) => p !== '{event}');
  const hasParams = params.length > 0;
  const known = params.every((p) => p === '{id}') && w.ids[resource] !== undefined;
  const rejectsEmpty = op.body !== undefined && ((op.body.required ?? []).length > 0 || (op.body.minProperties ?? 0) > 0);
  for (const principal of PRINCIPALS) {
    const label = `${op.method} ${op.path} as ${principal}`;
    // What the permission rules decide, before the body is validated: a person signed in to the portal by its app
    // session's rules, then refused an app's operations.
    const rules = rulesOf(principal);
    let refusal: object | undefined;
    if (rules === 'client session' && op.policy.clientSession === 'none') refusal = REFUSED.clientHidden;
    else if (rules === 'client session' && write && op.policy.clientSession === 'read') refusal = REFUSED.clientWrite;
    else if (STAFF.includes(rules) && !op.policy.staff) refusal = REFUSED.staff;
    else if (isPortalPerson(principal) && !op.policy.portal) refusal = REFUSED.appsOnly;

    // Allowed principals delete a random id (404): the walk must not remove the objects it names.
    const deletes = op.method === 'DELETE' && !refusal && principal !== 'other workspace key';
    const id = known && !deletes ? w.ids[resource] : randomUUID();
    const sample = w.queries[`${op.method} ${op.path}`];
    const url = op.path.replace(/\{id\}/g, id).replace(/\{[^}]+\}/g, () => randomUUID()) + (sample ? `?${sample.query}` : '');
    // Another workspace's key sends a valid body, so that what answers is the lookup of this workspace's object.
    const body = op.body === undefined ? undefined : principal === 'other workspace key' && hasParams ? sampleOf(op.body) : {};
    const res = await w.call(principal, {
      method: op.method as InjectOptions['method'],
      url,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    const answer = `${label}: ${res.statusCode} ${res.body}`;

    if (refusal) {
      assert.equal(res.statusCode, (refusal as { code: string }).code === 'not_found' ? 404 : 403, answer);
      assert.deepEqual(res.json(), refusal, answer);
      continue;
    }
    assert.notEqual(res.statusCode, 401, answer);
    assert.ok(
      !Object.values(REFUSED).some((r) => JSON.stringify(r) === res.body),
      `${answer} (allowed, yet refused by the permission rules)`,
    );
    if (principal === 'other workspace key' && hasParams) {
      assert.equal(res.statusCode, 404, `${answer} (another workspace's object must be absent)`);
      assert.equal(res.json().code, 'not_found', answer);
    } else if (write && rejectsEmpty) {
      assert.equal(res.statusCode, 400, `${answer} (allowed: {} reaches validation)`);
      assert.equal(res.json().code, 'bad_request', answer);
    } else if (hasParams) {
      const visible = known && !deletes && sees(rules, resource);
      // The walked contract is not signed: its document is a 409 to those who see it; the walked client signed in to
      // the portal (its invite is accepted): inviting it again is a 409.
      const found = op.path === '/v1/contracts/{id}/pdf' || op.path === '/v1/clients/{id}/invite' ? 409 : 200;
      assert.equal(res.statusCode, visible ? found : 404, `${answer} (allowed: the object ${visible ? 'is' : 'is not'} there for it)`);
      if (!visible) assert.equal(res.json().code, 'not_found', answer);
    } else if (!write) {
      // A list whose required query names an object: found by those who see the object.
      const visible = sample === undefined || sees(rules, sample.resource);
      assert.equal(
        res.statusCode,
        visible ? 200 : 404,
        `${answer} (allowed${sample ? `; ${sample.query} ${visible ? 'is' : 'is not'} there for it` : ''})`,
      );
    }
    // Otherwise (a write with no body to validate, such as POST /v1/token) the handler's own answer stands.
  }
}

/**
 * The admin surface takes only its own token: every principal of the API is a 401 there. Each operation
 * is walked from its own address, so the refusals stay under the per-IP failure limit (30 a minute).
 */
async function walkAdmin(w: World, op: Operation, index: number) {
  const url = op.path.replace('{workspaceId}', w.ws.workspaceId).replace(/\{[^}]+\}/g, () => randomUUID());
  for (const principal of PRINCIPALS) {
    const res = await w.call(principal, {
      method: op.method as InjectOptions['method'],
      url,
      remoteAddress: `10.66.0.${index + 1}`,
      ...(op.body ? { payload: {} } : {}),
    });
    const answer = `${op.method} ${op.path} as ${principal}: ${res.statusCode} ${res.body}`;
    assert.equal(res.statusCode, 401, answer);
    assert.deepEqual(res.json(), ADMIN_REFUSED, answer);
  }
}

async function walk(t: Parameters<typeof adminHarness>[0], backend: Backend) {
  // The admin surface is on, so that it is walked too.
  const h = await adminHarness(t, backend);
  const w = await principalWorld(h);
  const operations = operationsOf(await openapiDocument(h));
  const v1 = operations.filter((op) => op.path.startsWith('/v1/'));
  // Signing in and out of the console are the admin surface's only open operations (test/admin-operator.test.ts).
  const open = operations.filter((op) => op.path.startsWith('/admin/') && op.open).map((op) => `${op.method} ${op.path}`);
  assert.deepEqual(open.sort(), ['DELETE /admin/session', 'POST /admin/session']);
  const admin = operations.filter((op) => op.path.startsWith('/admin/') && !op.open);
  assert.ok(v1.length >= 17 && admin.length >= 2, `the walk covers the API: ${v1.length} /v1 and ${admin.length} /admin operations`);
  for (const op of v1) await t.test(`${op.method} ${op.path}`, () => walkV1(w, op));
  for (const [index, op] of admin.entries()) await t.test(`${op.method} ${op.path}`, () => walkAdmin(w, op, index));
  // Nothing the walk did removed or hid the objects it names.
  for (const url of [`/v1/clients/${w.client.id}`, `/v1/companies/${w.company.id}`]) {
    assert.equal((await w.call('workspace key', { method: 'GET', url })).statusCode, 200, `${url} is still there`);
  }
}

for (const backend of BACKENDS) {
  describe(`route permissions, every operation of the OpenAPI document [${backend}]`, () => {
    test('every operation states its policy (x-policy), as its route declares it', async (t) => {
      const h = await adminHarness(t, backend);
      const operations = operationsOf(await openapiDocument(h));
      for (const op of operations) {
        assert.ok(op.policy, `${op.method} ${op.path} has x-policy`);
        assert.deepEqual(Object.keys(op.policy).sort(), ['clientSession', 'portal', 'staff'], `${op.method} ${op.path}`);
        assert.ok(
          ['none', 'read', 'write'].includes(op.policy.clientSession),
          `${op.method} ${op.path}: clientSession ${op.policy.clientSession}`,
        );
        assert.equal(typeof op.policy.staff, 'boolean', `${op.method} ${op.path}: staff`);
        assert.equal(typeof op.policy.portal, 'boolean', `${op.method} ${op.path}: portal`);
      }
      const policy = (method: string, path: string) => operations.find((op) => op.method === method && op.path === path)?.policy;
      assert.deepEqual(policy('DELETE', '/v1/clients/{id}'), { clientSession: 'read', staff: false, portal: true });
      assert.deepEqual(policy('DELETE', '/v1/companies/{id}'), { clientSession: 'read', staff: false, portal: true });
      assert.deepEqual(policy('GET', '/v1/me'), { clientSession: 'read', staff: true, portal: true });
      assert.deepEqual(policy('PATCH', '/v1/clients/{id}'), { clientSession: 'read', staff: true, portal: true });
      assert.deepEqual(policy('GET', '/v1/internal-users'), { clientSession: 'none', staff: true, portal: true });
      assert.deepEqual(policy('GET', '/v1/workspaces'), { clientSession: 'none', staff: true, portal: true });
      // The team: an admin's (issue 45), keys and tokens too; hidden from client sessions.
      for (const method of ['PATCH', 'DELETE']) {
        assert.deepEqual(policy(method, '/v1/internal-users/{id}'), { clientSession: 'none', staff: false, portal: true });
      }
      assert.deepEqual(policy('POST', '/v1/internal-users'), { clientSession: 'none', staff: false, portal: true });
      // What a person signed in to the portal may not call: apps' operations (docs/api.md, "Who may call what").
      const appsOnly = operations.filter((op) => !op.policy.portal).map((op) => `${op.method} ${op.path}`);
      assert.deepEqual(appsOnly.sort(), APPS_ONLY);
    });

    test('every /v1 and /admin operation, for every kind of principal, answers as its policy says', async (t) => {
      await walk(t, backend);
    });
  });
}
