// Rule (issue 44, point 1): the operator sets a workspace's logo as an image's bytes (PNG, JPEG, WebP or GIF, read from
// the bytes whatever the request declares; never SVG; at most 512 KiB), replaces and removes it; nothing refused is
// written. The operator's workspace names it (`logoUrl`, under PORTAL_URL), and so does the portal's workspace (a path
// of its own origin, with the image's size); its portal serves it publicly at a path named by the bytes' SHA-256, with
// its type, nosniff, a CSP of nothing and cached for good; an older logo's path, or another workspace's, is a 404.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { TEST_ADMIN_TOKEN, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, adminHarness } from '../../../../test/helpers/harness.js';
import { GIF_1x1, JPEG_40x20, WEBP_40x20, logoPng, png } from '../../../../test/helpers/images.js';
import { portalBrowser } from '../../../../test/helpers/portal.js';
import { MAX_IMAGE_BYTES } from '../../../lib/images.js';

const PORTAL_URL = 'https://portal.acme.test';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const logoPath = (workspaceId: string, bytes: Buffer) => `/portal/${workspaceId}/api/workspace/logo/${sha256(bytes)}`;

async function world(t: Parameters<typeof adminHarness>[0], backend: (typeof BACKENDS)[number]) {
  const h = await adminHarness(t, backend, { env: { PORTAL_URL } });
  const { ws } = await populatedWorkspace(h);
  return { h, ws };
}

/** PUT /admin/workspaces/{id}/logo with `body` (bytes, or a stream) declared as `contentType`. */
const putLogo = (
  h: Harness,
  workspaceId: string,
  body: Buffer | Readable,
  contentType = 'application/octet-stream',
  token = TEST_ADMIN_TOKEN,
) =>
  h.app.inject({
    method: 'PUT',
    url: `/admin/workspaces/${workspaceId}/logo`,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    payload: body,
  });
const removeLogo = (h: Harness, workspaceId: string) =>
  h.app.inject({
    method: 'DELETE',
    url: `/admin/workspaces/${workspaceId}/logo`,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  });
const listed = async (h: Harness, workspaceId: string) => {
  const res = await h.app.inject({ method: 'GET', url: '/admin/workspaces', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data as { id: string; logoUrl?: string; updatedAt: string }[]).find((w) => w.id === workspaceId);
};
const served = (h: Harness, path: string) => h.app.inject({ method: 'GET', url: path });

/** The served image: 200, its bytes, and the headers that keep it an image that is cached for good. */
function assertServed(res: Awaited<ReturnType<typeof served>>, bytes: Buffer, type: string) {
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(res.rawPayload.equals(bytes), 'the bytes as set');
  assert.equal(res.headers['content-type'], type);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(res.headers['content-security-policy'], "default-src 'none'");
  assert.equal(res.headers['content-length'], String(bytes.length));
}

function assertNotFound(res: Awaited<ReturnType<typeof served>>) {
  assert.equal(res.statusCode, 404, res.body);
  assert.deepEqual(res.json(), { code: 'not_found', message: 'Logo not found.', data: null });
  assert.equal(res.headers['cache-control'], 'no-store');
}

for (const backend of BACKENDS) {
  describe(`workspace logos [${backend}]`, () => {
    test('set, replaced and removed: logoUrl in the operator’s and the portal’s workspace, the bytes served, an older path 404', async (t) => {
      const { h, ws } = await world(t, backend);
      const before = await listed(h, ws.workspaceId);
      assert.ok(before && !('logoUrl' in before), 'none to begin with');
      const portal = portalBrowser(h, ws.workspaceId);
      const { brandColor } = (await portal.call('GET', '/workspace')).json();

      const first = logoPng();
      h.clock.advance(1000);
      const set = await putLogo(h, ws.workspaceId, first, 'image/png');
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json(), {
        ...before,
        logoUrl: PORTAL_URL + logoPath(ws.workspaceId, first),
        updatedAt: new Date(h.clock.now()).toISOString(),
      });
      assert.equal((await listed(h, ws.workspaceId))?.logoUrl, PORTAL_URL + logoPath(ws.workspaceId, first));
      assert.deepEqual((await portal.call('GET', '/workspace')).json(), {
        object: 'portalWorkspace',
        id: ws.workspaceId,
        name: 'Acme',
        brandColor,
        logoUrl: logoPath(ws.workspaceId, first),
        logoWidth: 96,
        logoHeight: 64,
      });
      assertServed(await served(h, logoPath(ws.workspaceId, first)), first, 'image/png');
      const head = await h.app.inject({ method: 'HEAD', url: logoPath(ws.workspaceId, first) });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-type'], 'image/png');

      // Replaced by a JPEG (declared as something else: the type is the bytes'): a new path; the old one is gone.
      const replaced = await putLogo(h, ws.workspaceId, JPEG_40x20, 'text/plain');
      assert.equal(replaced.statusCode, 200, replaced.body);
      assert.equal(replaced.json().logoUrl, PORTAL_URL + logoPath(ws.workspaceId, JPEG_40x20));
      assertServed(await served(h, logoPath(ws.workspaceId, JPEG_40x20)), JPEG_40x20, 'image/jpeg');
      assertNotFound(await served(h, logoPath(ws.workspaceId, first)));
      const portalNow = (await portal.call('GET', '/workspace')).json();
      assert.deepEqual([portalNow.logoUrl, portalNow.logoWidth, portalNow.logoHeight], [logoPath(ws.workspaceId, JPEG_40x20), 40, 20]);

      // WebP and GIF are taken too, as sent.
      for (const [bytes, type] of [
        [WEBP_40x20, 'image/webp'],
        [GIF_1x1, 'image/gif'],
      ] as const) {
        assert.equal((await putLogo(h, ws.workspaceId, bytes)).statusCode, 200);
        assertServed(await served(h, logoPath(ws.workspaceId, bytes)), bytes, type);
      }

      // Removed: none anywhere, its path a 404; removing none changes nothing but the time.
      h.clock.advance(1000);
      const removed = await removeLogo(h, ws.workspaceId);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal('logoUrl' in removed.json(), false);
      assert.equal(removed.json().updatedAt, new Date(h.clock.now()).toISOString());
      assert.equal('logoUrl' in ((await listed(h, ws.workspaceId)) ?? {}), false);
      const portalAfter = (await portal.call('GET', '/workspace')).json();
      assert.deepEqual(Object.keys(portalAfter).sort(), ['brandColor', 'id', 'name', 'object']);
      assertNotFound(await served(h, logoPath(ws.workspaceId, GIF_1x1)));
      assert.equal((await removeLogo(h, ws.workspaceId)).statusCode, 200);
    });

    test('refused, naming the body, with nothing written: SVG, HTML, JSON, nothing, a signature alone, too large', async (t) => {
      const { h, ws } = await world(t, backend);
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      const notAnImage = {
        code: 'unsupported_media_type',
        message: 'body is not a PNG, JPEG, WebP or GIF image (its type is read from its bytes; SVG is never taken)',
        data: [{ path: 'body', message: 'is not a PNG, JPEG, WebP or GIF image (its type is read from its bytes; SVG is never taken)' }],
      };
      for (const [body, type] of [
        [svg, 'image/svg+xml'],
        [Buffer.from('<!doctype html><script>alert(1)</script>'), 'image/png'],
        [Buffer.from('{"logo":"x"}'), 'application/json'],
      ] as const) {
        const res = await putLogo(h, ws.workspaceId, body, type);
        assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
        assert.deepEqual(res.json(), notAnImage);
      }
      const empty = await putLogo(h, ws.workspaceId, Buffer.alloc(0));
      assert.equal(empty.statusCode, 400);
      assert.deepEqual(empty.json(), {
        code: 'bad_request',
        message: 'body: is empty: send the bytes of a PNG, JPEG, WebP or GIF image',
        data: [{ path: 'body', message: 'is empty: send the bytes of a PNG, JPEG, WebP or GIF image' }],
      });
      const noBody = await h.app.inject({
        method: 'PUT',
        url: `/admin/workspaces/${ws.workspaceId}/logo`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      assert.equal(noBody.statusCode, 400, noBody.body);
      assert.equal(noBody.json().data[0].path, 'body');
      const cut = await putLogo(h, ws.workspaceId, logoPng().subarray(0, 20), 'image/png');
      assert.equal(cut.statusCode, 400);
      assert.deepEqual(cut.json().data, [{ path: 'body', message: 'is not a whole image: its header gives no size' }]);

      // Too large: announced by its Content-Length, or found as it streams in (no length given).
      const tooLarge = { code: 'payload_too_large', message: `Request body is larger than ${MAX_IMAGE_BYTES} bytes.`, data: null };
      const big = Buffer.concat([logoPng(), Buffer.alloc(MAX_IMAGE_BYTES)]);
      const announced = await putLogo(h, ws.workspaceId, big, 'image/png');
      assert.equal(announced.statusCode, 413);
      assert.deepEqual(announced.json(), tooLarge);
      const streamed = await putLogo(h, ws.workspaceId, Readable.from([big.subarray(0, 300_000), big.subarray(300_000)]), 'image/png');
      assert.equal(streamed.statusCode, 413, streamed.body);
      assert.deepEqual(streamed.json(), tooLarge);
      assert.equal('logoUrl' in ((await listed(h, ws.workspaceId)) ?? {}), false, 'nothing was written');

      // At the limit exactly, it is taken (a PNG with bytes after its end, which readers ignore).
      const atLimit = Buffer.concat([logoPng(), Buffer.alloc(MAX_IMAGE_BYTES - logoPng().length)]);
      assert.equal(atLimit.length, MAX_IMAGE_BYTES);
      const taken = await putLogo(h, ws.workspaceId, Readable.from([atLimit]), 'image/png');
      assert.equal(taken.statusCode, 200, taken.body);
      assertServed(await served(h, logoPath(ws.workspaceId, atLimit)), atLimit, 'image/png');

      // A refused replacement leaves the logo there.
      assert.equal((await putLogo(h, ws.workspaceId, svg, 'image/svg+xml')).statusCode, 415);
      assert.equal((await listed(h, ws.workspaceId))?.logoUrl, PORTAL_URL + logoPath(ws.workspaceId, atLimit));
    });

    test('workspaces apart: one’s logo is never served under another’s path; unknown workspaces and no token are refused', async (t) => {
      const { h, ws } = await world(t, backend);
      const other = await populatedWorkspace(h, 'Other');
      const mine = logoPng([124, 58, 237]);
      const theirs = logoPng([22, 163, 74]);
      assert.equal((await putLogo(h, ws.workspaceId, mine)).statusCode, 200);
      assert.equal((await putLogo(h, other.ws.workspaceId, theirs)).statusCode, 200);
      assertServed(await served(h, logoPath(other.ws.workspaceId, theirs)), theirs, 'image/png');
      // Each hash under the other workspace's path: not found.
      assertNotFound(await served(h, `/portal/${other.ws.workspaceId}/api/workspace/logo/${sha256(mine)}`));
      assertNotFound(await served(h, `/portal/${ws.workspaceId}/api/workspace/logo/${sha256(theirs)}`));
      const unknown = '00000000-0000-4000-8000-000000000000';
      const nowhere = await served(h, `/portal/${unknown}/api/workspace/logo/${sha256(mine)}`);
      assert.equal(nowhere.statusCode, 404);
      assert.equal(nowhere.json().code, 'not_found');
      assert.equal((await served(h, `/portal/${ws.workspaceId}/api/workspace/logo/${'a'.repeat(65)}`)).statusCode, 400);

      const unknownPut = await putLogo(h, unknown, mine);
      assert.equal(unknownPut.statusCode, 404, unknownPut.body);
      assert.deepEqual(unknownPut.json(), { code: 'not_found', message: 'Workspace not found.', data: null });
      assert.equal((await removeLogo(h, unknown)).statusCode, 404);
      const wrongToken = await putLogo(h, ws.workspaceId, theirs, 'image/png', 'not-the-admin-token-0123456789');
      assert.equal(wrongToken.statusCode, 401);
      // Neither workspace's logo changed.
      assert.equal((await listed(h, ws.workspaceId))?.logoUrl, PORTAL_URL + logoPath(ws.workspaceId, mine));
      assert.equal((await listed(h, other.ws.workspaceId))?.logoUrl, PORTAL_URL + logoPath(other.ws.workspaceId, theirs));
      // A workspace key's portal is its own: the /v1 API has no logo route.
      const v1 = await h.as(ws.apiKey, { method: 'PUT', url: `/v1/workspaces/${other.ws.workspaceId}/logo`, payload: mine });
      assert.equal(v1.statusCode, 404);
    });

    test('set at once: each answer names the logo it set, and the last one stands whole', async (t) => {
      const { h, ws } = await world(t, backend);
      const images = [logoPng([124, 58, 237]), logoPng([22, 163, 74]), png(300, 100), JPEG_40x20, WEBP_40x20];
      const answers = await Promise.all(images.map((bytes) => putLogo(h, ws.workspaceId, bytes)));
      answers.forEach((res, i) => {
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().logoUrl, PORTAL_URL + logoPath(ws.workspaceId, images[i]));
      });
      const standing = (await listed(h, ws.workspaceId))?.logoUrl ?? '';
      const which = images.find((bytes) => standing.endsWith(sha256(bytes)));
      assert.ok(which, `one of them stands: ${standing}`);
      assert.equal((await served(h, new URL(standing).pathname)).rawPayload.equals(which), true, 'its own bytes');
    });

    test('the logo goes with its workspace', async (t) => {
      const { h, ws } = await world(t, backend);
      assert.equal((await putLogo(h, ws.workspaceId, logoPng())).statusCode, 200);
      const { db } = h.app.ctx.database;
      const count = async () =>
        Number(
          (
            await db
              .selectFrom('workspace_logos')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count(), 1);
      await db.deleteFrom('workspaces').where('id', '=', ws.workspaceId).execute();
      assert.equal(await count(), 0);
    });
  });
}
