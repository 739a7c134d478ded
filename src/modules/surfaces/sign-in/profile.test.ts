// Rule (issue 44, point 1): a person signed in to the portal reads and changes its own profile (names, picture, whether
// notifications are e-mailed to it) through the sign-in API, and only its own: a client's changes are recorded as a
// PATCH of the client is (clientUpdated), and the API shows them (avatarImageUrl); a picture is an image read from its
// bytes (never SVG), at most 512 KiB, served at its own URL with safe headers and gone when replaced, removed, or its
// person deleted; a person who turned e-mails off gets no notification e-mail (its in-product notification still comes),
// but still gets its sign-in links. Bad input is a 4xx naming the field and changes nothing; concurrent changes queue.
// On both backends.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { GIF_1x1, SCRIPTED_SVG, solidPng } from '../../../../test/helpers/images.js';
import { auditEntries, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, adminHarness } from '../../../../test/helpers/harness.js';
import { type PortalBrowser, emailCount, portalBrowser, signedInBrowser } from '../../../../test/helpers/portal.js';
import { MAX_IMAGE_BYTES } from '../../../lib/images.js';

const PORTAL_URL = 'https://portal.acme.test';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const PNG = solidPng(8, 8, [200, 40, 90]);

/** A workspace with an invited client (Grace) and a staff member (Sam), each signed in by an e-mailed link. */
async function world(t: Parameters<typeof adminHarness>[0], backend: (typeof BACKENDS)[number], name = 'Acme') {
  const h = await adminHarness(t, backend, { env: { PORTAL_URL } });
  const w = await populatedWorkspace(h, name);
  const email = `grace@${name.toLowerCase()}.test`;
  const invited = await h.as(w.ws.apiKey, {
    method: 'POST',
    url: '/v1/clients?sendInvite=true',
    payload: { email, givenName: 'Grace', familyName: 'H', companyId: w.company.id },
  });
  assert.equal(invited.statusCode, 200, invited.body);
  const grace = invited.json() as { id: string; email: string; updatedAt: string };
  const client = await signedInBrowser(h, w.ws.workspaceId, email);
  const staff = await signedInBrowser(h, w.ws.workspaceId, w.user.email, 'internalUser');
  // `ada`: the company's first client (never invited, never signed in); `client`: Grace's browser.
  return { h, ...w, ada: w.client, grace, client, staff };
}
type World = Awaited<ReturnType<typeof world>>;

/** A picture PUT with its Content-Type (the bytes raw, as a browser sends a File). */
const upload = (browser: PortalBrowser, bytes: Buffer, contentType: string) =>
  browser.call('PUT', '/profile/avatar', bytes, { 'content-type': contentType });

/** GET of a picture's URL (no cookie: anyone with the URL). */
const fetchPicture = (h: Harness, url: string) => h.app.inject({ method: 'GET', url: new URL(url).pathname });

const profileEvents = async (w: World) =>
  (await auditEntries(w.h, w.ws.workspaceId))
    .filter((e) => e.event_type === 'clientUpdated')
    .map((e) => ({ actor: [e.actor_id, e.actor_type, e.source], previous: e.previous_attributes }));

for (const backend of BACKENDS) {
  describe(`the signed-in person's profile [${backend}]`, () => {
    test('read and change its own names and e-mail choice: a client’s recorded as clientUpdated, the API shows them', async (t) => {
      const w = await world(t, backend);
      const { h, grace, client, staff, user } = w;
      const mine = await client.call('GET', '/profile');
      assert.equal(mine.statusCode, 200, mine.body);
      assert.equal(mine.headers['cache-control'], 'no-store');
      const base = { object: 'profile', type: 'client', id: grace.id, email: grace.email, givenName: 'Grace', familyName: 'H' };
      assert.deepEqual(mine.json(), { ...base, notificationPreferences: { email: true } });

      h.clock.advance(1000);
      const renamed = await client.call('PATCH', '/profile', { givenName: '  Grace ', familyName: 'Hopper' });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.deepEqual(renamed.json(), { ...base, familyName: 'Hopper', notificationPreferences: { email: true } });
      const seen = (await h.as(w.ws.apiKey, { method: 'GET', url: `/v1/clients/${grace.id}` })).json();
      assert.deepEqual([seen.givenName, seen.familyName, seen.updatedAt], ['Grace', 'Hopper', new Date(NOON + 1000).toISOString()]);
      assert.deepEqual(await profileEvents(w), [{ actor: [grace.id, 'clientUser', 'web'], previous: { familyName: 'H' } }]);

      h.clock.advance(1000);
      const quiet = await client.call('PATCH', '/profile', { notificationPreferences: { email: false } });
      assert.equal(quiet.statusCode, 200, quiet.body);
      assert.deepEqual(quiet.json(), { ...base, familyName: 'Hopper', notificationPreferences: { email: false } });
      assert.deepEqual((await client.call('GET', '/profile')).json(), quiet.json(), 'kept');
      const after = (await h.as(w.ws.apiKey, { method: 'GET', url: `/v1/clients/${grace.id}` })).json();
      assert.equal(after.updatedAt, seen.updatedAt, 'the e-mail choice is no field of the client: not an update of it');
      assert.equal((await profileEvents(w)).length, 1, 'nor an event');
      const same = await client.call('PATCH', '/profile', { givenName: 'Grace', notificationPreferences: {} });
      assert.deepEqual(same.json(), quiet.json(), 'nothing changed');
      assert.equal((await profileEvents(w)).length, 1, 'nothing recorded');

      // An internal user: its own row; the specification has no event for it.
      const entriesBefore = (await auditEntries(h, w.ws.workspaceId)).length;
      const staffProfile = await staff.call('PATCH', '/profile', { givenName: 'Samuel', notificationPreferences: { email: false } });
      assert.equal(staffProfile.statusCode, 200, staffProfile.body);
      assert.deepEqual(staffProfile.json(), {
        object: 'profile',
        type: 'internalUser',
        id: user.id,
        email: user.email,
        givenName: 'Samuel',
        familyName: 'Staff',
        notificationPreferences: { email: false },
      });
      const sam = (await h.as(w.ws.apiKey, { method: 'GET', url: `/v1/internal-users/${user.id}` })).json();
      assert.deepEqual([sam.givenName, sam.familyName], ['Samuel', 'Staff']);
      assert.equal((await auditEntries(h, w.ws.workspaceId)).length, entriesBefore, 'no event for an internal user’s own profile');
      // Grace's row is untouched by Sam's change.
      assert.deepEqual((await client.call('GET', '/profile')).json(), quiet.json());
    });

    test('bad input: a 400 naming each field, nothing written; no session 401, no X-Portal-Request 403', async (t) => {
      const w = await world(t, backend);
      const { client } = w;
      const before = (await client.call('GET', '/profile')).json();
      const refused = async (payload: object, data: object[]) => {
        const res = await client.call('PATCH', '/profile', payload);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json().data, data, JSON.stringify(payload));
      };
      await refused({ givenName: '', familyName: 'Ok' }, [{ path: 'body.givenName', message: 'is required: it cannot be blank' }]);
      await refused({ givenName: ' \t ', familyName: '' }, [
        { path: 'body.givenName', message: 'is required: it cannot be blank' },
        { path: 'body.familyName', message: 'is required: it cannot be blank' },
      ]);
      await refused({ familyName: 'x'.repeat(201), givenName: 'Ok' }, [
        { path: 'body.familyName', message: 'must NOT have more than 200 characters' },
      ]);
      await refused({ givenName: 'Ok', notificationPreferences: { email: 'no' } }, [
        { path: 'body.notificationPreferences.email', message: 'must be boolean' },
      ]);
      await refused({ givenName: 'Ok', email: 'me@elsewhere.test' }, [{ path: 'body.email', message: 'is not changed here' }]);
      await refused({ givenName: 'Ok', avatarImageUrl: 'https://evil.test/x.png' }, [
        { path: 'body.avatarImageUrl', message: 'is not changed here' },
      ]);
      await refused({ givenName: 'Ok', nickname: 'G' }, [{ path: 'body.nickname', message: 'is not a known field' }]);
      assert.deepEqual((await client.call('GET', '/profile')).json(), before, 'no partial write');

      const { h, ws } = w;
      const anonymous = await h.app.inject({ method: 'GET', url: `/portal/${ws.workspaceId}/api/profile` });
      assert.deepEqual([anonymous.statusCode, anonymous.json().code], [401, 'unauthorized']);
      const forged = await h.app.inject({
        method: 'PATCH',
        url: `/portal/${ws.workspaceId}/api/profile`,
        headers: { cookie: `portal_session=${client.cookie}` },
        payload: { givenName: 'Mallory' },
      });
      assert.deepEqual([forged.statusCode, forged.json().code], [403, 'forbidden'], 'another site cannot send it');
      const crossOrigin = await client.call('PUT', '/profile/avatar', PNG, { 'content-type': 'image/png', origin: 'https://evil.test' });
      assert.equal(crossOrigin.statusCode, 403, crossOrigin.body);
      assert.deepEqual((await client.call('GET', '/profile')).json(), before);
    });

    test('a picture: uploaded, served with safe headers, shown by the API; replaced (the old URL a 404), removed', async (t) => {
      const w = await world(t, backend);
      const { h, grace, client, ws } = w;
      h.clock.advance(1000);
      const set = await upload(client, PNG, 'image/png');
      assert.equal(set.statusCode, 200, set.body);
      const url = `${PORTAL_URL}/portal/${ws.workspaceId}/api/avatars/${grace.id}/${sha256(PNG)}`;
      assert.equal(set.json().avatarImageUrl, url);
      assert.equal((await client.call('GET', '/profile')).json().avatarImageUrl, url);
      const served = await fetchPicture(h, url);
      assert.equal(served.statusCode, 200);
      assert.deepEqual(served.rawPayload, PNG);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(served.headers['content-security-policy'], "default-src 'none'");
      assert.equal(served.headers['set-cookie'], undefined);
      const shown = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/clients/${grace.id}` })).json();
      assert.deepEqual([shown.avatarImageUrl, shown.updatedAt], [url, new Date(NOON + 1000).toISOString()]);
      assert.deepEqual(await profileEvents(w), [{ actor: [grace.id, 'clientUser', 'web'], previous: { avatarImageUrl: null } }]);

      // The type is the bytes', whatever the Content-Type said: a GIF sent as image/png is served as a GIF.
      h.clock.advance(1000);
      const replaced = await upload(client, GIF_1x1, 'image/png');
      assert.equal(replaced.statusCode, 200, replaced.body);
      const gifUrl = `${PORTAL_URL}/portal/${ws.workspaceId}/api/avatars/${grace.id}/${sha256(GIF_1x1)}`;
      assert.equal(replaced.json().avatarImageUrl, gifUrl);
      const gif = await fetchPicture(h, gifUrl);
      assert.deepEqual([gif.statusCode, gif.headers['content-type'], gif.rawPayload], [200, 'image/gif', GIF_1x1]);
      const stale = await fetchPicture(h, url);
      assert.deepEqual([stale.statusCode, stale.json().code], [404, 'not_found'], 'the replaced picture’s URL');
      const rows = await h.app.ctx.db.selectFrom('avatars').select(['content_hash', 'content_type', 'byte_size']).execute();
      assert.deepEqual(rows, [{ content_hash: sha256(GIF_1x1), content_type: 'image/gif', byte_size: GIF_1x1.length }], 'one kept');

      h.clock.advance(1000);
      const removed = await client.call('DELETE', '/profile/avatar');
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(removed.json().avatarImageUrl, undefined);
      assert.equal((await fetchPicture(h, gifUrl)).statusCode, 404);
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: `/v1/clients/${grace.id}` })).json().avatarImageUrl, undefined);
      assert.deepEqual(
        (await profileEvents(w)).map((e) => e.previous),
        [{ avatarImageUrl: null }, { avatarImageUrl: url }, { avatarImageUrl: gifUrl }],
      );
      const again = await client.call('DELETE', '/profile/avatar');
      assert.deepEqual([again.statusCode, again.json().avatarImageUrl], [200, undefined], 'none to remove is no error');
      assert.equal((await profileEvents(w)).length, 3, 'and no change');

      // Staff: the internal user's avatarImageUrl.
      const staffSet = await upload(w.staff, PNG, 'image/png');
      const staffUrl = `${PORTAL_URL}/portal/${ws.workspaceId}/api/avatars/${w.user.id}/${sha256(PNG)}`;
      assert.equal(staffSet.json().avatarImageUrl, staffUrl);
      const sam = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/internal-users/${w.user.id}` })).json();
      assert.equal(sam.avatarImageUrl, staffUrl);
      assert.equal((await fetchPicture(h, staffUrl)).statusCode, 200);
    });

    test('refused pictures: SVG and HTML (415, or 400 naming the body), too large (413), empty; nothing changes', async (t) => {
      const w = await world(t, backend);
      const { h, client } = w;
      const first = await upload(client, PNG, 'image/png');
      const before = first.json();
      const refused = async (bytes: Buffer, contentType: string, status: number, data: object[] | null, message: string) => {
        const res = await upload(client, bytes, contentType);
        assert.equal(res.statusCode, status, res.body);
        assert.deepEqual(res.json(), { code: res.json().code, message, data }, `${contentType}: ${res.body}`);
      };
      await refused(
        SCRIPTED_SVG,
        'image/svg+xml',
        415,
        [{ path: 'body', message: 'is not a PNG, JPEG, WebP or GIF image' }],
        'A picture must be a PNG, JPEG, WebP or GIF image (got image/svg+xml).',
      );
      const html = Buffer.from('<!doctype html><script>alert(1)</script>');
      await refused(
        html,
        'text/html',
        415,
        null,
        'A picture is sent as its bytes, with its Content-Type (image/png, image/jpeg, image/webp or image/gif; got text/html).',
      );
      await refused(
        html,
        'image/png',
        400,
        [{ path: 'body', message: 'is not a PNG, JPEG, WebP or GIF image (its bytes are not those of image/png)' }],
        'body: is not a PNG, JPEG, WebP or GIF image (its bytes are not those of image/png)',
      );
      await refused(
        Buffer.alloc(0),
        'image/png',
        400,
        [{ path: 'body', message: 'is empty: send the picture’s bytes' }],
        'body: is empty: send the picture’s bytes',
      );
      const large = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES + 1 - PNG.length)]);
      await refused(large, 'image/png', 413, null, `Request body is larger than ${MAX_IMAGE_BYTES} bytes.`);
      const exactly = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES - PNG.length)]);
      const fits = await upload(client, exactly, 'image/png');
      assert.equal(fits.statusCode, 200, 'exactly the limit is taken');
      const back = await upload(client, PNG, 'image/png');
      assert.deepEqual(back.json(), before);
      assert.deepEqual(
        (await h.app.ctx.db.selectFrom('avatars').select('content_hash').execute()).map((r) => r.content_hash),
        [sha256(PNG)],
      );
    });

    test('workspaces apart: a session reaches only its own workspace’s profile, a picture’s URL only under its own', async (t) => {
      const w = await world(t, backend);
      const { h, ws, grace, client } = w;
      const set = await upload(client, PNG, 'image/png');
      const url = new URL(set.json().avatarImageUrl);
      const other = await h.workspace('Other');
      // The cookie sent to another workspace's sign-in API opens nothing there.
      const there = portalBrowser(h, other.workspaceId);
      there.cookie = client.cookie;
      for (const res of [
        await there.call('GET', '/profile'),
        await there.call('PATCH', '/profile', { givenName: 'Mallory' }),
        await upload(there, GIF_1x1, 'image/gif'),
        await there.call('DELETE', '/profile/avatar'),
      ]) {
        assert.deepEqual([res.statusCode, res.json().code], [401, 'unauthorized'], res.body);
      }
      const elsewhere = url.pathname.replace(ws.workspaceId, other.workspaceId);
      assert.equal((await h.app.inject({ method: 'GET', url: elsewhere })).statusCode, 404, 'under another workspace');
      const unknown = url.pathname.replace(ws.workspaceId, '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b');
      assert.equal((await h.app.inject({ method: 'GET', url: unknown })).statusCode, 404, 'under no workspace');
      const upper = url.pathname.replace(sha256(PNG), sha256(PNG).toUpperCase());
      assert.equal((await h.app.inject({ method: 'GET', url: upper })).statusCode, 404, 'the hash as answered only');
      const someoneElse = url.pathname.replace(grace.id, w.user.id);
      assert.equal((await h.app.inject({ method: 'GET', url: someoneElse })).statusCode, 404, 'another person of the workspace');
      assert.deepEqual((await client.call('GET', '/profile')).json().avatarImageUrl, set.json().avatarImageUrl, 'untouched');

      // Deleting the client deletes its picture (its row goes by the foreign key).
      const deleted = await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/clients/${grace.id}` });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal((await h.app.inject({ method: 'GET', url: url.pathname })).statusCode, 404);
      assert.deepEqual(await h.app.ctx.db.selectFrom('avatars').select('id').execute(), []);
      assert.equal((await client.call('GET', '/profile')).statusCode, 401, 'its session ended with it');
    });

    test('notification e-mails: not sent to a person who turned them off (in product still), sent again when on; sign-in links always', async (t) => {
      const w = await world(t, backend);
      const { h, ws, grace, client, staff, user, company } = w;
      const notify = (recipient: object, targets: object) =>
        h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/notifications',
          payload: { senderId: user.id, ...recipient, deliveryTargets: targets },
        });
      const both = { inProduct: { title: 'Invoice ready' }, email: { subject: 'Your invoice', body: 'It is ready.' } };
      const mails = () => emailCount(h, ws.workspaceId, grace.email);
      const start = await mails();

      const on = await notify({ recipientClientId: grace.id }, both);
      assert.equal(on.statusCode, 200, on.body);
      assert.deepEqual(Object.keys(on.json().deliveryTargets), ['inProduct', 'email']);
      assert.equal(await mails(), start + 1, 'on: e-mailed');

      await client.call('PATCH', '/profile', { notificationPreferences: { email: false } });
      const off = await notify({ recipientClientId: grace.id }, both);
      assert.equal(off.statusCode, 200, off.body);
      assert.deepEqual(Object.keys(off.json().deliveryTargets), ['inProduct'], 'the in-product notification only');
      assert.equal(await mails(), start + 1, 'off: no e-mail');
      const onlyEmail = await notify({ recipientClientId: grace.id }, { email: both.email });
      assert.deepEqual([onlyEmail.statusCode, onlyEmail.body], [202, ''], 'nothing left to send: nothing stored');
      const listed = await client.api('GET', `/notifications?recipientClientId=${grace.id}&includeRead=true`);
      assert.equal(listed.json().data.length, 2);

      // A company's notification e-mails its clients but those who turned e-mails off.
      const colleague = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/clients',
        payload: { email: 'ada2@acme.test', givenName: 'Ada', familyName: 'Two', companyId: company.id },
      });
      assert.equal(colleague.statusCode, 200, colleague.body);
      const toCompany = await notify({ recipientCompanyId: company.id }, both);
      assert.equal(toCompany.statusCode, 200, toCompany.body);
      assert.equal(await mails(), start + 1, 'not Grace');
      assert.equal(await emailCount(h, ws.workspaceId, 'ada2@acme.test'), 1, 'her colleague');
      assert.equal(await emailCount(h, ws.workspaceId, w.ada.email), 1, 'and the company’s first client');

      // Sign-in links are always sent.
      const link = await client.call('POST', '/sign-in/link', { email: grace.email });
      assert.equal(link.statusCode, 202);
      assert.equal(await mails(), start + 2, 'the sign-in link went out');

      // Staff too; and back on, e-mails come again.
      await staff.call('PATCH', '/profile', { notificationPreferences: { email: false } });
      const toSam = await notify({ recipientInternalUserId: user.id }, both);
      assert.deepEqual(Object.keys(toSam.json().deliveryTargets), ['inProduct']);
      assert.equal(await emailCount(h, ws.workspaceId, user.email), 1, 'only the sign-in link the test signed in with');
      await client.call('PATCH', '/profile', { notificationPreferences: { email: true } });
      const back = await notify({ recipientClientId: grace.id }, both);
      assert.deepEqual(Object.keys(back.json().deliveryTargets), ['inProduct', 'email']);
      assert.equal(await mails(), start + 3, 'on again: e-mailed');
    });

    test('concurrent changes queue: every PATCH applied in turn, none lost, the row consistent; one picture row', async (t) => {
      const w = await world(t, backend);
      const { h, ws, grace, client } = w;
      const n = 12;
      const answers = await Promise.all(
        Array.from({ length: n }, (_, i) => client.call('PATCH', '/profile', { givenName: `G${i}`, familyName: `F${i}` })),
      );
      for (const a of answers) assert.equal(a.statusCode, 200, a.body);
      const final = (await client.call('GET', '/profile')).json();
      const k = final.givenName.slice(1);
      assert.equal(final.familyName, `F${k}`, 'both names from one request');
      const shown = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/clients/${grace.id}` })).json();
      assert.deepEqual([shown.givenName, shown.familyName], [final.givenName, final.familyName]);
      // Each change saw the one before it: the previous names recorded are the start and every request's but the last's.
      const previous = (await profileEvents(w)).map((e) => `${e.previous.givenName}/${e.previous.familyName}`);
      assert.equal(previous.length, n, 'one entry per change');
      assert.deepEqual(
        [...previous, `${final.givenName}/${final.familyName}`].sort(),
        ['Grace/H', ...Array.from({ length: n }, (_, i) => `G${i}/F${i}`)].sort(),
      );

      const images = Array.from({ length: 6 }, (_, i) => solidPng(4, 4, [i * 40, 10, 10]));
      const uploads = await Promise.all(images.map((bytes) => upload(client, bytes, 'image/png')));
      for (const u of uploads) assert.equal(u.statusCode, 200, u.body);
      const kept = await h.app.ctx.db.selectFrom('avatars').select('content_hash').execute();
      assert.equal(kept.length, 1, 'one picture per person');
      const now = (await client.call('GET', '/profile')).json().avatarImageUrl;
      assert.equal(now, `${PORTAL_URL}/portal/${ws.workspaceId}/api/avatars/${grace.id}/${kept[0].content_hash}`);
      assert.equal((await fetchPicture(h, now)).statusCode, 200);
    });
  });
}
