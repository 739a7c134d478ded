// A browser's view of the sign-in API (/portal/{workspaceId}/api): it keeps the session cookie between requests,
// as a browser would, and sends X-Portal-Request: 1 with every change, as the portal's pages do.
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Harness } from './types.js';

export interface PortalBrowser {
  /** A request to /portal/{workspaceId}/api{path}, with the cookie kept so far. */
  call(method: InjectOptions['method'], path: string, payload?: object, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A request to the /v1 API as the person signed in: /portal/{workspaceId}/v1{path}, with the cookie, as the portal's pages call it. */
  api(method: InjectOptions['method'], path: string, payload?: object, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The session cookie as it stands ('' once cleared). */
  cookie: string;
}

export function portalBrowser(h: Pick<Harness, 'app'>, workspaceId: string): PortalBrowser {
  const request = (method: InjectOptions['method'], url: string, payload?: object, headers: Record<string, string> = {}) =>
    h.app.inject({
      method,
      url,
      headers: {
        ...(method === 'GET' ? {} : { 'x-portal-request': '1' }),
        ...(browser.cookie ? { cookie: `portal_session=${browser.cookie}` } : {}),
        ...headers,
      },
      ...(payload ? { payload } : {}),
    });
  const browser: PortalBrowser = {
    cookie: '',
    api: (method, path, payload, headers) => request(method, `/portal/${workspaceId}/v1${path}`, payload, headers),
    async call(method, path, payload, headers = {}) {
      const res = await request(method, `/portal/${workspaceId}/api${path}`, payload, headers);
      const set = res.headers['set-cookie'];
      const value = typeof set === 'string' ? /^portal_session=([^;]*)/.exec(set)?.[1] : undefined;
      if (value !== undefined) browser.cookie = value;
      return res;
    },
  };
  return browser;
}

/**
 * The newest e-mail queued to `to` in the workspace (with `page`: the newest whose link is to that portal page, as a
 * frozen test clock may date an invite and a sign-in link alike): its subject, text and its link's token (after `#`).
 */
export async function lastEmailTo(h: Pick<Harness, 'app'>, workspaceId: string, to: string, page?: string) {
  await h.app.ctx.afterResponse.settled(); // links are e-mailed after the request's answer
  const rows = await h.app.ctx.db
    .selectFrom('email_outbox')
    .select(['subject', 'text_body', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('to_address', '=', to)
    .orderBy('created_at', 'desc')
    .execute();
  const row = page === undefined ? rows[0] : rows.find((mail) => mail.text_body.includes(`/${page}#`));
  assert.ok(row, `an e-mail to ${to}${page ? ` with a link to ${page}` : ''}`);
  const link = /(https?:\/\/\S+)#([A-Za-z0-9_-]+)/.exec(row.text_body);
  return { subject: row.subject, text: row.text_body, count: rows.length, url: link?.[1], token: link?.[2] };
}

export async function emailCount(h: Pick<Harness, 'app'>, workspaceId: string, to: string): Promise<number> {
  await h.app.ctx.afterResponse.settled();
  const rows = await h.app.ctx.db
    .selectFrom('email_outbox')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('to_address', '=', to)
    .execute();
  return rows.length;
}

/** A person signed in as a browser does it without a password: an e-mailed link (POST /sign-in/link), redeemed. */
export async function signedInBrowser(
  h: Pick<Harness, 'app'>,
  workspaceId: string,
  email: string,
  userType: 'client' | 'internalUser' = 'client',
): Promise<PortalBrowser> {
  const browser = portalBrowser(h, workspaceId);
  const asked = await browser.call('POST', '/sign-in/link', { email, userType });
  assert.equal(asked.statusCode, 202, asked.body);
  const { token } = await lastEmailTo(h, workspaceId, email, 'magic-link');
  assert.ok(token, `a sign-in link to ${email}`);
  const redeemed = await browser.call('POST', '/sign-in/link/redeem', { token });
  assert.equal(redeemed.statusCode, 200, redeemed.body);
  assert.equal(redeemed.json().stage, 'active', redeemed.body);
  return browser;
}
