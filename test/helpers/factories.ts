// Factories: the one test file that calls services of src/ (every other test goes through the HTTP API,
// the `portal` command or these functions), so a change of a service's signature is adapted here only.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { systemCaller } from '../../src/lib/caller.js';
import type { Clock } from '../../src/lib/clock.js';
import { createApiKey, revokeApiKey } from '../../src/modules/resources/credentials/index.js';
import { type InternalUserCreate, createInternalUser } from '../../src/modules/resources/internal-users/index.js';
import { createWorkspace } from '../../src/modules/resources/workspaces/index.js';
import type { Harness } from './types.js';

/** The app ids the tests give app keys. */
export const APP_ID = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11';
export const OTHER_APP_ID = '1d7f5c1e-0b1a-4c4e-8f7e-5b9a2c3d4e5f';

/** The PORTAL_ADMIN_TOKEN of adminHarness(). */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** What the workspace and key factories need of an app: its database and clock (the harness builds on them). */
export interface AppWithClock {
  app: FastifyInstance;
  clock: Clock;
}

// ---- workspaces and keys ----

/** A workspace with its first (workspace-kind) key, as `portal workspaces create` makes it. */
export function createTestWorkspace(
  on: AppWithClock,
  name: string,
  dailyQuota?: number,
  sandbox?: boolean,
): Promise<{ workspaceId: string; apiKeyId: string; apiKey: string }> {
  const input = { name, ...(dailyQuota === undefined ? {} : { dailyQuota }), ...(sandbox ? { sandbox } : {}) };
  return createWorkspace(on.app.ctx.database, input, on.clock.now());
}

/** An app key of the workspace, as `portal keys create --app` makes it. */
export function createAppKey(on: AppWithClock, workspaceId: string, appId: string): Promise<{ apiKeyId: string; apiKey: string }> {
  return createApiKey(on.app.ctx.database, systemCaller(workspaceId, on.clock.now()), { kind: 'app', appId });
}

/** Revokes a key, as `portal keys revoke` does; rejects (404) for a key of another workspace. */
export function revokeKey(h: AppWithClock, workspaceId: string, apiKeyId: string): Promise<void> {
  return revokeApiKey(h.app.ctx.database, systemCaller(workspaceId, h.clock.now()), apiKeyId);
}

// ---- internal users ----

export type InternalUserFields = InternalUserCreate;

/**
 * An internal user, as `portal internal-users create` makes it, at the harness clock's time; the API item.
 * Rejects with the service's coded error (400, 409) for bad input.
 */
export function createTestInternalUser(h: Harness, workspaceId: string, input: InternalUserFields) {
  return createInternalUser(h.app.ctx.database, systemCaller(workspaceId, h.clock.now()), input);
}

// ---- companies and clients, through the API ----

/** POST /v1/companies with the key; the created company (the request must succeed). */
export async function createCompany(h: Harness, apiKey: string, body: Record<string, unknown>) {
  const res = await h.as(apiKey, { method: 'POST', url: '/v1/companies', payload: body });
  assert.equal(res.statusCode, 200, `create company: ${res.body}`);
  return res.json();
}

/** POST /v1/clients with the key; the created client (the request must succeed). */
export async function createClient(h: Harness, apiKey: string, body: Record<string, unknown>) {
  const res = await h.as(apiKey, { method: 'POST', url: '/v1/clients', payload: body });
  assert.equal(res.statusCode, 200, `create client: ${res.body}`);
  return res.json();
}

/**
 * Adds a second company to a client, in the database (the API has no route that adds a membership):
 * a client of several companies, for the rules that make such a client name its company.
 */
export async function addClientCompany(
  h: Harness,
  workspaceId: string,
  client: { id: string; createdAt: string; companyId: string },
  companyId: string,
) {
  await h.app.ctx.db
    .insertInto('client_companies')
    .values({ workspace_id: workspaceId, client_id: client.id, company_id: companyId, client_created_at: client.createdAt })
    .execute();
  await h.app.ctx.db
    .updateTable('clients')
    .set({ company_ids: `${client.companyId},${companyId}` })
    .where('id', '=', client.id)
    .execute();
}

/** A workspace with an app key (APP_ID), an internal user (staff) and a client in a named company. */
export async function populatedWorkspace(h: Harness, name = 'Acme') {
  const ws = await h.workspace(name);
  const app = await h.appKey(ws.workspaceId, APP_ID);
  const user = await createTestInternalUser(h, ws.workspaceId, { email: `staff@${name}.test`, givenName: 'Sam', familyName: 'Staff' });
  const company = await createCompany(h, ws.apiKey, { name: `${name} Co` });
  const client = await createClient(h, ws.apiKey, { email: `ada@${name}.test`, givenName: 'Ada', familyName: 'L', companyId: company.id });
  return { ws, app, user, company, client };
}

// ---- principals: bearer tokens and sessions ----

/** POST /v1/token with the key in X-API-KEY (no body); the response. */
export const mintBearerToken = (h: Harness, apiKey: string) => h.as(apiKey, { method: 'POST', url: '/v1/token' });

/** A request with `Authorization: Bearer <token>`. */
export const withBearer = (
  h: Harness,
  token: string,
  method: InjectOptions['method'],
  url: string,
  payload?: object,
): Promise<LightMyRequestResponse> =>
  h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

/** A request to the admin surface with `Authorization: Bearer <token>` (by default the harness's admin token, else TEST_ADMIN_TOKEN). */
export function adminRequest(
  h: Harness,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
  token = h.adminToken ?? TEST_ADMIN_TOKEN,
): Promise<LightMyRequestResponse> {
  return h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

export interface SessionFields {
  apiKey: string;
  clientId?: string;
  companyId?: string;
  internalUserId?: string;
}

/** Mints an end-user session on the admin surface (build the harness with adminHarness()); its 200 body. */
export async function mintSession(h: Harness, workspaceId: string, body: SessionFields) {
  const res = await adminRequest(h, 'POST', `/admin/workspaces/${workspaceId}/sessions`, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { token: string; tokenId: string; expiresAt: number };
}

/** The X-API-KEY value of a session: `<workspaceId>/<appKey>/<tokenId>`. */
export const sessionKey = (workspaceId: string, apiKey: string, tokenId: string) => `${workspaceId}/${apiKey}/${tokenId}`;

/** Mints a session and answers its X-API-KEY value. */
export async function sessionKeyFor(h: Harness, workspaceId: string, body: SessionFields) {
  return sessionKey(workspaceId, body.apiKey, (await mintSession(h, workspaceId, body)).tokenId);
}

// ---- custom fields and the audit log, in the database ----

/** Defines a custom field directly in the database (the `portal custom-fields` command has its own tests). */
export async function defineCustomField(
  h: Harness,
  workspaceId: string,
  field: { entity: 'client' | 'company'; key: string; type: string; options?: string[] },
): Promise<{ id: string; options: { id: string; key: string; label: string }[] }> {
  const id = randomUUID();
  const at = new Date(h.clock.now()).toISOString();
  await h.app.ctx.db
    .insertInto('custom_fields')
    .values({
      id,
      workspace_id: workspaceId,
      entity_type: field.entity,
      key: field.key,
      name: field.key,
      type: field.type as any,
      created_at: at,
      updated_at: at,
    })
    .execute();
  const options = (field.options ?? []).map((label) => ({ id: randomUUID(), key: label.toLowerCase().replace(/[^a-z0-9]+/g, '_'), label }));
  for (const option of options) {
    await h.app.ctx.db
      .insertInto('custom_field_options')
      .values({ ...option, workspace_id: workspaceId, custom_field_id: id, created_at: at })
      .execute();
  }
  return { id, options };
}

/** The audit entries of a workspace, oldest first, JSON columns parsed. */
export async function auditEntries(h: Harness, workspaceId: string) {
  const rows = await h.app.ctx.db
    .selectFrom('audit_log')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('event_type')
    .execute();
  return rows.map((r) => ({
    ...r,
    context: JSON.parse(r.context),
    previous_attributes: r.previous_attributes ? JSON.parse(r.previous_attributes) : null,
  }));
}

/** An internal user limited to `companyIds`, and a session of theirs through the app key (a limited caller). */
export async function limitedUserSession(h: Harness, workspaceId: string, appKey: string, companyIds: string[], email: string) {
  const [givenName, familyName] = email.startsWith('lim@') ? ['Li', 'M'] : ['L', 'T'];
  const user = await createTestInternalUser(h, workspaceId, { email, givenName, familyName, companyAccessList: companyIds });
  return { user, session: await sessionKeyFor(h, workspaceId, { apiKey: appKey, internalUserId: user.id }) };
}
