// A browser's view of the sign-in API (/portal/{workspaceId}/api): it keeps the session cookie between requests,
// as a browser would, and sends X-Portal-Request: 1 with every change, as the portal's pages do.
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Harness } from './types.js';

export interface PortalBrowser {
  /** A request to /portal/{workspaceId}/api{path}, with the cookie kept so far. */
  call(method: InjectOptions['method'], path: string, payload?: object, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The session cookie as it stands ('' once cleared). */
  cookie: string;
}

export function portalBrowser(h: Pick<Harness, 'app'>, workspaceId: string): PortalBrowser {
  const browser: PortalBrowser = {
    cookie: '',
    async call(method, path, payload, headers = {}) {
      const res = await h.app.inject({
        method,
        url: `/portal/${workspaceId}/api${path}`,
        headers: {
          ...(method === 'GET' ? {} : { 'x-portal-request': '1' }),
          ...(browser.cookie ? { cookie: `portal_session=${browser.cookie}` } : {}),
          ...headers,
        },
        ...(payload ? { payload } : {}),
      });
      const set = res.headers['set-cookie'];
      const value = typeof set === 'string' ? /^portal_session=([^;]*)/.exec(set)?.[1] : undefined;
      if (value !== undefined) browser.cookie = value;
      return res;
    },
  };
  return browser;
}

/** The newest e-mail queued to `to` in the workspace: its subject, text and the token of the link in it (after `#`). */
export async function lastEmailTo(h: Pick<Harness, 'app'>, workspaceId: string, to: string) {
  await h.app.ctx.afterResponse.settled(); // links are e-mailed after the request's answer
  const rows = await h.app.ctx.db
    .selectFrom('email_outbox')
    .select(['subject', 'text_body', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('to_address', '=', to)
    .orderBy('created_at', 'desc')
    .execute();
  assert.ok(rows.length > 0, `an e-mail to ${to}`);
  const [row] = rows;
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
