// The worlds module tests start from, written once: each test file's own `world()` calls these pieces and adds
// only what is its family's (a template, a form, a channel, …). Built on the factories (factories.ts).
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { addClientCompany, createClient, createCompany, populatedWorkspace, sessionKeyFor } from './factories.js';
import { type Backend, type HarnessOptions, adminHarness } from './harness.js';
import type { Harness } from './types.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A module test's harness: the admin surface on (sessions, admin routes), no webhook worker, no subscription poll. */
export function moduleHarness(t: TestContext, backend: Backend, opts: HarnessOptions = {}): Promise<Harness> {
  return adminHarness(t, backend, { webhooks: false, subscriptionPollMs: false, ...opts });
}

/** Requests with a key: `call(method, url, payload?, key = the default key)`. */
export function keyCaller(h: Harness, defaultKey: string) {
  return (method: Method, url: string, payload?: object, key = defaultKey): Promise<LightMyRequestResponse> =>
    h.as(key, { method, url, ...(payload ? { payload } : {}) });
}

/** The body of a 200 answer; anything else fails the test with the answer's body. */
export function okJson(res: LightMyRequestResponse, what = 'request') {
  assert.equal(res.statusCode, 200, `${what}: ${res.body}`);
  return res.json();
}

/** The entries of one event type, newest first, as GET /v1/audit-logs?eventType= serves them to the key. */
export function auditReader(h: Harness, key: string) {
  return async (eventType: string) =>
    (await h.as(key, { method: 'GET', url: `/v1/audit-logs?eventType=${eventType}` })).json().data as any[];
}

/** Session keys through the workspace's app key: `session({ clientId })`, `session({ internalUserId })`. */
export function sessionMaker(h: Harness, workspaceId: string, appKey: string) {
  return (body: { clientId?: string; companyId?: string; internalUserId?: string }) =>
    sessionKeyFor(h, workspaceId, { apiKey: appKey, ...body });
}

/** The clients of Beta the module tests name (ada is Acme's, from populatedWorkspace). */
const BETA_CLIENTS = {
  bob: { email: 'bob@beta.test', givenName: 'Bob', familyName: 'B' },
  cy: { email: 'cy@beta.test', givenName: 'Cy', familyName: 'C' },
  multi: { email: 'multi@beta.test', givenName: 'Mu', familyName: 'M' },
};

/**
 * The workspace most module tests start from: populatedWorkspace's Acme (its key `ws`, app key `app`, staff
 * `user`, Acme Co as `acme`/`company` with ada as `ada`/`client`) and a second company, Beta, with bob; calls with
 * the workspace key (`call`), the audit log by event type (`audit`), sessions through the app key (`session`),
 * and `betaClient('cy')` / `multiClient()` for the other named clients (multi: in Beta, and in Acme too).
 * Pass a populatedWorkspace already made when the file's world creates something in between.
 */
export async function acmeAndBeta(h: Harness, populated?: Awaited<ReturnType<typeof populatedWorkspace>>) {
  const w = populated ?? (await populatedWorkspace(h));
  const beta = await createCompany(h, w.ws.apiKey, { name: 'Beta' });
  const betaClient = (name: keyof typeof BETA_CLIENTS) => createClient(h, w.ws.apiKey, { ...BETA_CLIENTS[name], companyId: beta.id });
  const bob = await betaClient('bob');
  const multiClient = async () => {
    const multi = await betaClient('multi');
    await addClientCompany(h, w.ws.workspaceId, multi, w.company.id);
    return multi;
  };
  return {
    h,
    ...w,
    acme: w.company,
    ada: w.client,
    beta,
    bob,
    betaClient,
    multiClient,
    call: keyCaller(h, w.ws.apiKey),
    audit: auditReader(h, w.ws.apiKey),
    session: sessionMaker(h, w.ws.workspaceId, w.app.apiKey),
  };
}
