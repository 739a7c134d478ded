// Every operation of the OpenAPI document, for every kind of principal: the default permission rules of the
// README (Permissions) hold. What an operation allows is read from its `x-policy` (src/plugins/openapi.ts,
// policyOf), so a route added later is walked without anyone listing it here.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import {
  APP_ID,
  createClient,
  createCompany,
  createTestInternalUser,
  defineCustomField,
  mintBearerToken,
  sessionKeyFor,
} from './helpers/factories.js';
import { BACKENDS, type Backend, type Harness, adminHarness } from './helpers/harness.js';

const PRINCIPALS = [
  'workspace key',
  'app key',
  'bearer token',
  'admin session',
  'staff session',
  'limited staff session',
  'client session',
  'other workspace key',
] as const;
type PrincipalName = (typeof PRINCIPALS)[number];
const STAFF: readonly PrincipalName[] = ['staff session', 'limited staff session'];

/** The refusals src/plugins/authorization.ts answers: what an allowed principal must never get. */
const REFUSED = {
  clientHidden: { code: 'not_found', message: 'Resource not found.', data: null },
  clientWrite: { code: 'forbidden', message: 'A client session may not change this.', data: null },
  staff: { code: 'forbidden', message: 'Staff may not do this; an admin may.', data: null },
};
const ADMIN_REFUSED = {
  code: 'unauthorized',
  message: 'Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>, or sign in to the console.',
  data: null,
};

interface Policy {
  clientSession: 'none' | 'read' | 'write';
  staff: boolean;
}
interface Operation {
  method: string;
  path: string;
  policy: Policy;
  /** The JSON body schema, when the operation takes one. */
  body?: Record<string, any>;
  /** Documented with no security requirement: open to anyone. */
  open: boolean;
}

type World = Awaited<ReturnType<typeof world>>;

/**
 * One workspace with a client in a company, a second company, an admin, a staff member and a staff member
 * limited to the second company, a custom field, and a principal of every kind; and another workspace's key.
 */
async function world(h: Harness) {
  const ws = await h.workspace('Walked');
  const other = await h.workspace('Other');
  const app = await h.appKey(ws.workspaceId, APP_ID);
  const minted = await mintBearerToken(h, app.apiKey);
  assert.equal(minted.statusCode, 200, minted.body);
  const company = await createCompany(h, ws.apiKey, { name: 'Company' });
  const elsewhere = await createCompany(h, ws.apiKey, { name: 'Elsewhere' });
  const client = await createClient(h, ws.apiKey, {
    email: 'client@walk.test',
    givenName: 'Cli',
    familyName: 'Ent',
    companyId: company.id,
  });
  const admin = await createTestInternalUser(h, ws.workspaceId, {
    email: 'admin@walk.test',
    givenName: 'Ad',
    familyName: 'Min',
    role: 'admin',
  });
  const staff = await createTestInternalUser(h, ws.workspaceId, {
    email: 'staff@walk.test',
    givenName: 'St',
    familyName: 'Aff',
    role: 'staff',
  });
  const limited = await createTestInternalUser(h, ws.workspaceId, {
    email: 'limited@walk.test',
    givenName: 'Li',
    familyName: 'Mited',
    role: 'staff',
    companyAccessList: [elsewhere.id],
  });
  const field = await defineCustomField(h, ws.workspaceId, { entity: 'client', key: 'tier', type: 'text' });
  const session = (body: { clientId?: string; internalUserId?: string }) =>
    sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, ...body });
  const keys: Record<Exclude<PrincipalName, 'bearer token'>, string> = {
    'workspace key': ws.apiKey,
    'app key': app.apiKey,
    'admin session': await session({ internalUserId: admin.id }),
    'staff session': await session({ internalUserId: staff.id }),
    'limited staff session': await session({ internalUserId: limited.id }),
    'client session': await session({ clientId: client.id }),
    'other workspace key': other.apiKey,
  };
  const token = minted.json().token as string;
  const call = (principal: PrincipalName, options: InjectOptions): Promise<LightMyRequestResponse> =>
    principal === 'bearer token'
      ? h.app.inject({ ...options, headers: { authorization: `Bearer ${token}`, ...(options.headers ?? {}) } })
      : h.as(keys[principal], options);
  /** The object of this workspace an `{id}` under /v1/<resource> names. */
  const ids: Record<string, string> = { clients: client.id, companies: company.id, 'internal-users': admin.id, 'custom-fields': field.id };
  return { ws, client, company, call, ids };
}

/** Whether the principal sees this workspace's object of that resource (the repositories' narrowing, lib/access.ts). */
function sees(principal: PrincipalName, resource: string): boolean {
  const directory = resource === 'clients' || resource === 'companies';
  if (principal === 'other workspace key') return false;
  if (principal === 'limited staff session') return !directory; // limited to the other company
  if (principal === 'client session') return directory; // itself and its company (the other routes are closed to it)
  return true;
}

/** A minimal body valid for the schema (its required properties), for the calls that must reach the handler. */
function sampleOf(schema: Record<string, any>): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf ?? schema.oneOf) return sampleOf((schema.anyOf ?? schema.oneOf)[0]);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key: string) => [key, sampleOf(schema.properties[key])]));
    case 'string':
      return (
        { email: `${randomUUID()}@walk.test`, uuid: randomUUID(), uri: 'https://walk.test/' }[schema.format as string] ??
        `x${randomUUID().slice(0, 8)}`
      );
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items ?? {}));
    default:
      return null;
  }
}

/** Every operation of the document, with its policy and body schema ($refs to components resolved). */
function operationsOf(doc: any): Operation[] {
  const resolve = (schema: any) => (schema?.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);
  return Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      policy: op['x-policy'],
      open: Array.isArray(op.security) && op.security.length === 0,
      // A body of another type (the CSV import's text/csv) is walked with an empty JSON object all the same.
      ...(op.requestBody ? { body: resolve(op.requestBody.content['application/json']?.schema) ?? {} } : {}),
    })),
  );
}

async function openapiDocument(h: Harness) {
  const res = await h.app.inject('/openapi.json');
  assert.equal(res.statusCode, 200);
  return res.json();
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
    // What the permission rules decide, before the body is validated.
    let refusal: object | undefined;
    if (principal === 'client session' && op.policy.clientSession === 'none') refusal = REFUSED.clientHidden;
    else if (principal === 'client session' && write && op.policy.clientSession === 'read') refusal = REFUSED.clientWrite;
    else if (STAFF.includes(principal) && !op.policy.staff) refusal = REFUSED.staff;

    // Allowed principals delete a random id (404): the walk must not remove the objects it names.
    const deletes = op.method === 'DELETE' && !refusal && principal !== 'other workspace key';
    const id = known && !deletes ? w.ids[resource] : randomUUID();
    const url = op.path.replace(/\{id\}/g, id).replace(/\{[^}]+\}/g, () => randomUUID());
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
      const visible = known && !deletes && sees(principal, resource);
      assert.equal(res.statusCode, visible ? 200 : 404, `${answer} (allowed: the object ${visible ? 'is' : 'is not'} there for it)`);
      if (!visible) assert.equal(res.json().code, 'not_found', answer);
    } else if (!write) {
      assert.equal(res.statusCode, 200, `${answer} (allowed)`);
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
  const w = await world(h);
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
        assert.deepEqual(Object.keys(op.policy).sort(), ['clientSession', 'staff'], `${op.method} ${op.path}`);
        assert.ok(
          ['none', 'read', 'write'].includes(op.policy.clientSession),
          `${op.method} ${op.path}: clientSession ${op.policy.clientSession}`,
        );
        assert.equal(typeof op.policy.staff, 'boolean', `${op.method} ${op.path}: staff`);
      }
      const policy = (method: string, path: string) => operations.find((op) => op.method === method && op.path === path)?.policy;
      assert.deepEqual(policy('DELETE', '/v1/clients/{id}'), { clientSession: 'read', staff: false });
      assert.deepEqual(policy('DELETE', '/v1/companies/{id}'), { clientSession: 'read', staff: false });
      assert.deepEqual(policy('GET', '/v1/me'), { clientSession: 'read', staff: true });
      assert.deepEqual(policy('PATCH', '/v1/clients/{id}'), { clientSession: 'read', staff: true });
      assert.deepEqual(policy('GET', '/v1/internal-users'), { clientSession: 'none', staff: true });
      assert.deepEqual(policy('GET', '/v1/workspaces'), { clientSession: 'none', staff: true });
    });

    test('every /v1 and /admin operation, for every kind of principal, answers as its policy says', async (t) => {
      await walk(t, backend);
    });
  });
}
