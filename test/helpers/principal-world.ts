// A workspace with a principal of every kind, and the operations of the OpenAPI document: what the walks over
// every route (test/route-permissions.test.ts, test/idempotency-scope.test.ts) share.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import {
  APP_ID,
  adminRequest,
  createClient,
  createCompany,
  createTestInternalUser,
  defineCustomField,
  mintBearerToken,
} from './factories.js';
import { injectOrStream } from './event-stream.js';
import type { Harness } from './harness.js';
import { type PortalBrowser, signedInBrowser } from './portal.js';
import { sessionMaker } from './world.js';

export const PRINCIPALS = [
  'workspace key',
  'app key',
  'bearer token',
  'admin session',
  'staff session',
  'limited staff session',
  'client session',
  'other workspace key',
  'portal admin',
  'portal staff',
  'portal limited staff',
  'portal client',
] as const;
export type PrincipalName = (typeof PRINCIPALS)[number];

/** The refusals src/plugins/authorization.ts answers (before the body is validated). */
export const REFUSED = {
  clientHidden: { code: 'not_found', message: 'Resource not found.', data: null },
  clientWrite: { code: 'forbidden', message: 'A client session may not change this.', data: null },
  staff: { code: 'forbidden', message: 'Staff may not do this; an admin may.', data: null },
  appsOnly: { code: 'forbidden', message: 'An app’s operation: a person signed in to the portal may not call it.', data: null },
};

/** A person signed in to the portal, and the app session of the same person: the rules are the same for both. */
export const PORTAL_PERSONS = {
  'portal admin': 'admin session',
  'portal staff': 'staff session',
  'portal limited staff': 'limited staff session',
  'portal client': 'client session',
} as const satisfies Partial<Record<PrincipalName, PrincipalName>>;
export type PortalPerson = keyof typeof PORTAL_PERSONS;
export const isPortalPerson = (principal: PrincipalName): principal is PortalPerson => principal in PORTAL_PERSONS;
/** The principal whose rules a principal follows: an app session's for a person signed in, else its own. */
export const rulesOf = (principal: PrincipalName): PrincipalName => (isPortalPerson(principal) ? PORTAL_PERSONS[principal] : principal);

export interface Policy {
  clientSession: 'none' | 'read' | 'write';
  staff: boolean;
  portal: boolean;
}
export interface Operation {
  method: string;
  path: string;
  policy: Policy;
  /** The JSON body schema, when the operation takes one. */
  body?: Record<string, any>;
  /** Documented with no security requirement: open to anyone. */
  open: boolean;
}

export type World = Awaited<ReturnType<typeof principalWorld>>;

/**
 * One workspace with a client in a company, a second company, an admin, a staff member and a staff member
 * limited to the second company, a custom field, a message channel of the client, and a principal of every
 * kind; and another workspace's key.
 */
export async function principalWorld(h: Harness) {
  const ws = await h.workspace('Walked', undefined, true); // a sandbox: its test clock is walked too
  const other = await h.workspace('Other', undefined, true);
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
  const invited = await h.as(ws.apiKey, { method: 'POST', url: `/v1/clients/${client.id}/invite` }); // so that it may sign in
  assert.equal(invited.statusCode, 200, invited.body);
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
  const session = sessionMaker(h, ws.workspaceId, app.apiKey);
  const keys: Record<Exclude<PrincipalName, 'bearer token' | PortalPerson>, string> = {
    'workspace key': ws.apiKey,
    'app key': app.apiKey,
    'admin session': await session({ internalUserId: admin.id }),
    'staff session': await session({ internalUserId: staff.id }),
    'limited staff session': await session({ internalUserId: limited.id }),
    'client session': await session({ clientId: client.id }),
    'other workspace key': other.apiKey,
  };
  const signIn = (email: string, userType: 'client' | 'internalUser') => signedInBrowser(h, ws.workspaceId, email, userType);
  const [portalAdmin, portalStaff, portalLimited, portalClient] = await Promise.all([
    signIn('admin@walk.test', 'internalUser'),
    signIn('staff@walk.test', 'internalUser'),
    signIn('limited@walk.test', 'internalUser'),
    signIn('client@walk.test', 'client'),
  ]);
  const browsers: Record<PortalPerson, PortalBrowser> = {
    'portal admin': portalAdmin,
    'portal staff': portalStaff,
    'portal limited staff': portalLimited,
    'portal client': portalClient,
  };
  const token = minted.json().token as string;
  // An event stream's answer is read up to its first event (test/helpers/event-stream.ts): it never ends by itself.
  const call = (principal: PrincipalName, options: InjectOptions): Promise<LightMyRequestResponse> => {
    if (principal === 'bearer token')
      return injectOrStream(h.app, { ...options, headers: { authorization: `Bearer ${token}`, ...(options.headers ?? {}) } });
    if (!isPortalPerson(principal))
      return injectOrStream(h.app, { ...options, headers: { 'x-api-key': keys[principal], ...(options.headers ?? {}) } });
    // As the portal's pages call it: /v1 under the workspace's portal, with the cookie and the cross-site header.
    // (Anywhere else, as at /admin, the browser would not send the cookie; sent anyway, it is no credential there.)
    const url = String(options.url);
    const headers = { cookie: `portal_session=${browsers[principal].cookie}`, 'x-portal-request': '1', ...(options.headers ?? {}) };
    return injectOrStream(h.app, { ...options, url: url.startsWith('/v1/') ? `/portal/${ws.workspaceId}${url}` : url, headers });
  };
  const channel = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/message-channels',
    payload: { membershipType: 'individual', clientId: client.id },
  });
  assert.equal(channel.statusCode, 200, channel.body);
  // A task of the limited staff member's company (the client session does not see it), and a task template.
  const task = await h.as(ws.apiKey, { method: 'POST', url: '/v1/tasks', payload: { name: 'Walked task', companyId: elsewhere.id } });
  assert.equal(task.statusCode, 200, task.body);
  const taskTemplate = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/task-templates`, { name: 'Walked template' });
  assert.equal(taskTemplate.statusCode, 200, taskTemplate.body);
  // A note on the limited staff member's company.
  const note = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/notes',
    payload: { entityType: 'company', entityId: elsewhere.id, title: 'Walked note' },
  });
  assert.equal(note.statusCode, 200, note.body);
  // The client's file channel, and a file with content in it (the client session sees both).
  const fileChannel = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/channels/files',
    payload: { membershipType: 'individual', clientId: client.id },
  });
  assert.equal(fileChannel.statusCode, 200, fileChannel.body);
  const file = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/files/file',
    payload: { channelId: fileChannel.json().id, path: 'walked.txt' },
  });
  assert.equal(file.statusCode, 200, file.body);
  const uploadUrl = new URL(file.json().uploadUrl);
  const uploaded = await h.app.inject({ method: 'PUT', url: `${uploadUrl.pathname}${uploadUrl.search}`, payload: 'walked' });
  assert.equal(uploaded.statusCode, 200, uploaded.body);
  // A form requested of, and a contract sent to, the client (so its session sees them; the limited staff
  // member does not), from a form and a contract template of the workspace.
  const form = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/forms`, {
    name: 'Walked form',
    formFields: [{ title: 'Q', type: 'shortAnswer' }],
  });
  assert.equal(form.statusCode, 200, form.body);
  const formResponse = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/form-responses',
    payload: { formId: form.json().id, clientIds: [client.id] },
  });
  assert.equal(formResponse.statusCode, 200, formResponse.body);
  const contractTemplate = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/contract-templates`, {
    name: 'Walked template',
    fields: [{ type: 'signature', inputType: 'client' }],
  });
  assert.equal(contractTemplate.statusCode, 200, contractTemplate.body);
  const contract = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/contracts',
    payload: { contractTemplateId: contractTemplate.json().id, clientId: client.id },
  });
  assert.equal(contract.statusCode, 200, contract.body);
  /** The object of this workspace an `{id}` under /v1/<resource> names. */
  const ids: Record<string, string> = {
    clients: client.id,
    companies: company.id,
    'internal-users': admin.id,
    'custom-fields': field.id,
    'message-channels': channel.json().id,
    tasks: task.json().id,
    'task-templates': taskTemplate.json().id,
    notes: note.json().id,
    channels: fileChannel.json().id,
    files: file.json().id,
    forms: form.json().id,
    'form-responses': formResponse.json().id,
    'contract-templates': contractTemplate.json().id,
    contracts: contract.json().id,
  };
  /**
   * The query a list needs (a required parameter naming an object of this workspace), by `METHOD /path`, and
   * the resource of that object: who does not see it gets a 404.
   */
  const queries: Record<string, { query: string; resource: string }> = {
    'GET /v1/messages': { query: `channelId=${ids['message-channels']}`, resource: 'message-channels' },
    'GET /v1/files': { query: `channelId=${ids.channels}`, resource: 'channels' },
    'GET /v1/files/archive': { query: `ids=${ids.files}`, resource: 'files' },
  };
  return { ws, app, client, company, elsewhere, admin, limited, call, browsers, ids, queries };
}

/** A minimal body valid for the schema (its required properties), for the calls that must reach the handler. */
export function sampleOf(schema: Record<string, any>): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf ?? schema.oneOf) return sampleOf((schema.anyOf ?? schema.oneOf)[0]);
  switch (schema.type) {
    case 'object': {
      // Its required properties; then, while it needs more (`minProperties`), its first other ones.
      const keys: string[] = [...(schema.required ?? [])];
      for (const key of Object.keys(schema.properties ?? {})) {
        if (keys.length >= (schema.minProperties ?? 0)) break;
        if (!keys.includes(key)) keys.push(key);
      }
      return Object.fromEntries(keys.map((key) => [key, sampleOf(schema.properties[key])]));
    }
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
export function operationsOf(doc: any): Operation[] {
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

export async function openapiDocument(h: Harness) {
  const res = await h.app.inject('/openapi.json');
  assert.equal(res.statusCode, 200);
  return res.json();
}
