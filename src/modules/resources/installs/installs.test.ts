import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uuidV5 } from '../../../lib/uuid-v5.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { APP_ID, adminRequest, populatedWorkspace, sessionKeyFor } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness, freshDatabaseUrl } from '../../../../test/helpers/harness.js';

const CORE = ['messages', 'files', 'forms', 'contracts', 'billing', 'helpdesk', 'tasks'];
const ONLY_APPS_AND_LINKS = 'is only for custom, marketplace and link installs (an app’s page, a link’s destination)';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('uuidV5 is RFC 9562 version 5 (the RFC’s example: "www.example.com" in the DNS namespace)', () => {
  assert.equal(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
});

for (const backend of BACKENDS) {
  describe(`installs (contract §3, §7) [${backend}]`, () => {
    test('every workspace has the core modules, ids the UUID v5 of the module in the workspace namespace, in sidebar order', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws } = await populatedWorkspace(h);
      const res = await h.as(ws.apiKey, { method: 'GET', url: '/v1/installs' });
      assert.equal(res.statusCode, 200);
      const { data, nextToken } = res.json();
      assert.equal(nextToken, undefined);
      assert.deepEqual(
        data.map((i: { id: string; type: string; sort: number }) => [i.id, i.type, i.sort]),
        CORE.map((module, sort) => [uuidV5(module, ws.workspaceId), 'core', sort]),
      );
      assert.deepEqual(data[0], {
        id: uuidV5('messages', ws.workspaceId),
        object: 'install',
        type: 'core',
        status: 'published',
        displayName: 'Messages',
        icon: 'messages',
        appId: uuidV5('messages', '5c7e9a52-7d1b-4c55-9a43-6f1c0d2b8e10'),
        isDraft: false,
        autoSizeEmbed: true,
        embedCount: 0,
        isAuthenticated: false,
        isInternalApp: false,
        isRoot: false,
        iuSidebarHidden: false,
        path: 'messages',
        queryParams: [],
        sort: 0,
        supportsExpiringTokens: false,
        visibilityConfig: [],
      });
      assert.ok(!('disabled' in data[0]) && !('notificationConfig' in data[0]), 'internal-only fields never appear');
      const one = await h.as(ws.apiKey, { method: 'GET', url: `/v1/installs/${data[3].id}` });
      assert.deepEqual([one.statusCode, one.json()], [200, data[3]]);
    });

    test('a draft is hidden from client sessions until published; other principals see it; another workspace never', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, client } = await populatedWorkspace(h);
      const other = await h.workspace('Other');
      const created = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs`, {
        type: 'custom',
        name: ' Builder App ',
        appId: APP_ID,
        draft: true,
      });
      assert.equal(created.statusCode, 200, created.body);
      const { id } = created.json();
      assert.match(id, UUID);
      const asWorkspace = await h.as(ws.apiKey, { method: 'GET', url: `/v1/installs/${id}` });
      assert.deepEqual(
        [
          asWorkspace.json().status,
          asWorkspace.json().isDraft,
          asWorkspace.json().displayName,
          asWorkspace.json().appId,
          asWorkspace.json().sort,
        ],
        ['draft', true, 'Builder App', APP_ID, 7],
      );
      const clientKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const listedToClient = async () =>
        (await h.as(clientKey, { method: 'GET', url: '/v1/installs' })).json().data.map((i: { id: string }) => i.id);
      assert.ok(!(await listedToClient()).includes(id), 'not listed to a client');
      assert.equal((await h.as(clientKey, { method: 'GET', url: `/v1/installs/${id}` })).statusCode, 404);
      assert.equal((await h.as(other.apiKey, { method: 'GET', url: `/v1/installs/${id}` })).statusCode, 404, 'another workspace');

      const published = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs/${id}/publish`);
      assert.deepEqual([published.statusCode, published.json()], [200, { id, status: 'published' }]);
      assert.ok((await listedToClient()).includes(id), 'listed to clients once published');
      const again = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs/${id}/publish`);
      assert.deepEqual([again.statusCode, again.json()], [200, { id, status: 'published' }], 'publishing twice is harmless');
      const missing = await adminRequest(h, 'POST', `/admin/workspaces/${other.workspaceId}/installs/${id}/publish`);
      assert.deepEqual([missing.statusCode, missing.json().code], [404, 'not_found'], "another workspace's install");
    });

    test('create rules: custom and marketplace name their app, the others have none; only custom installs are drafts', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws } = await populatedWorkspace(h);
      const create = (body: object) => adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs`, body);
      const problems = async (body: object) => {
        const res = await create(body);
        assert.equal(res.statusCode, 400, res.body);
        return res.json().data;
      };
      assert.deepEqual(await problems({ type: 'marketplace', name: 'M' }), [
        { path: 'body.appId', message: 'is required for a marketplace install' },
      ]);
      assert.deepEqual(await problems({ type: 'link', name: 'L', appId: APP_ID }), [
        { path: 'body.appId', message: 'must be absent for a link install (it has no app)' },
      ]);
      assert.deepEqual(await problems({ type: 'embed', name: 'E', draft: true }), [
        { path: 'body.draft', message: 'applies only to custom (app builder) installs' },
      ]);
      assert.deepEqual(await problems({ type: 'core', name: 'C' }), [
        { path: 'body.type', message: 'must be one of: custom, marketplace, embed, link, manual' },
      ]);
      const link = await create({ type: 'link', name: 'Docs' });
      assert.equal(link.statusCode, 200);
      const read = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/installs/${link.json().id}` })).json();
      assert.deepEqual([read.type, read.status, read.appId, read.isDraft], ['link', 'published', '', false]);
      const unknown = await adminRequest(h, 'POST', '/admin/workspaces/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/installs', {
        type: 'link',
        name: 'X',
      });
      assert.deepEqual([unknown.statusCode, unknown.json().code], [404, 'not_found']);
    });

    test('url: an app’s page or a link’s destination (http or https), answered as embedLink; the other types have none', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws } = await populatedWorkspace(h);
      const create = (body: object) => adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs`, body);
      const read = async (body: object) => {
        const created = await create(body);
        assert.equal(created.statusCode, 200, created.body);
        return (await h.as(ws.apiKey, { method: 'GET', url: `/v1/installs/${created.json().id}` })).json();
      };
      const app = await read({ type: 'custom', name: 'Dev app', appId: APP_ID, url: 'http://127.0.0.1:5173/app?x=1' });
      assert.equal(app.embedLink, 'http://127.0.0.1:5173/app?x=1');
      assert.equal((await read({ type: 'link', name: 'Docs', url: 'https://docs.example.com/' })).embedLink, 'https://docs.example.com/');
      assert.equal('embedLink' in (await read({ type: 'marketplace', name: 'No URL', appId: APP_ID })), false, 'absent when not given');
      for (const [body, message] of [
        [{ type: 'manual', name: 'M', url: 'https://example.com' }, ONLY_APPS_AND_LINKS],
        [{ type: 'embed', name: 'E', url: 'https://example.com' }, ONLY_APPS_AND_LINKS],
        [{ type: 'link', name: 'L', url: 'javascript:alert(1)' }, 'must be an http(s) URL'],
        [{ type: 'custom', name: 'C', appId: APP_ID, url: 'not a url' }, 'must be an http(s) URL'],
      ] as const) {
        const res = await create(body);
        assert.deepEqual([res.statusCode, res.json().data], [400, [{ path: 'body.url', message }]], JSON.stringify(body));
      }
    });

    test('the list pages in sidebar order with nextToken, no install skipped or repeated', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws } = await populatedWorkspace(h);
      for (const name of ['A', 'B', 'C'])
        await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs`, { type: 'manual', name });
      const seen: number[] = [];
      let url = '/v1/installs?limit=3';
      for (let page = 0; page < 10; page++) {
        const body = (await h.as(ws.apiKey, { method: 'GET', url })).json();
        seen.push(...body.data.map((i: { sort: number }) => i.sort));
        if (!body.nextToken) break;
        url = `/v1/installs?limit=3&nextToken=${encodeURIComponent(body.nextToken)}`;
      }
      assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    test('portal installs create|publish print {id} and {id, status}; errors are one JSON object', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const created = await portal(
        url,
        'installs',
        'create',
        '--workspace',
        ws.workspaceId,
        '--type',
        'custom',
        '--name',
        'Builder',
        '--app-id',
        APP_ID,
        '--draft',
        '--json',
      );
      assert.equal(created.code, 0, created.stderr);
      const install = oneJson(created.stdout);
      assert.deepEqual(Object.keys(install), ['id']);
      const published = await portal(url, 'installs', 'publish', '--workspace', ws.workspaceId, '--install', install.id, '--json');
      assert.deepEqual([published.code, oneJson(published.stdout)], [0, { id: install.id, status: 'published' }]);
      const bad = await portal(url, 'installs', 'create', '--workspace', ws.workspaceId, '--type', 'custom', '--name', 'X', '--json');
      assert.deepEqual(
        [bad.code, oneJson(bad.stdout)],
        [1, { error: { code: 'bad_request', message: 'body.appId: is required for a custom install' } }],
      );
    });
  });
}
