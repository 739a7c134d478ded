// Rule (issue 44, point 1): on the account page a client changes their own profile — their name (the server's word
// about a blank one beside the field), their picture (a PNG made here, uploaded, shown, replaced by nothing), and whether
// notifications are e-mailed to them — and the API shows it (GET /v1/clients/{id}); with e-mails off, a notification
// reaches the portal but no e-mail is queued. In headless Chromium against a `portal serve` process, at 320 and 1280 px.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { solidPng } from './helpers/images.js';
import {
  ADMIN_TOKEN,
  type PortalServer,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

let portal: PortalServer;
before(async () => {
  portal = await startPortal();
});
after(() => portal?.close());

test('a client changes their name, picture and e-mail choice on the account page', { timeout: 180_000 }, async (t) => {
  const ws = await newWorkspace(portal, 'Acme');
  const staff = await portal.http<{ id: string }>(
    'POST',
    `/admin/workspaces/${ws.workspaceId}/internal-users`,
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    { givenName: 'Sam', familyName: 'Staff', email: 'sam@acme.test' },
  );
  assert.equal(staff.status, 201, JSON.stringify(staff.body));

  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  const clientId = await signedInClient(ws, v, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'H' });
  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Account' }).click();
  await arrived(v, 'account-profile-320', 'Your account');
  const names = page.getByRole('form', { name: 'Your name' });
  await names.getByLabel('Given name').waitFor();
  assert.equal(await names.getByLabel('Given name').inputValue(), 'Grace');
  assert.equal(await names.getByLabel('Family name').inputValue(), 'H');
  await page.getByRole('img', { name: 'No picture yet' }).waitFor();

  // A blank name: the server's word beside the field, which is marked invalid.
  await names.getByLabel('Family name').fill('   ');
  await names.getByRole('button', { name: 'Save' }).click();
  await names.getByText('Is required: it cannot be blank.').waitFor();
  await page.getByRole('alert').getByText('Your name is not saved: see the field marked below.').waitFor();
  assert.equal(await names.getByLabel('Family name').getAttribute('aria-invalid'), 'true');
  await checkPage(v, 'account-profile-error-320');

  await names.getByLabel('Family name').fill('Hopper');
  await names.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Your name is saved.').waitFor();
  const seen = await ws.call<{ givenName: string; familyName: string; avatarImageUrl?: string }>('GET', `/v1/clients/${clientId}`);
  assert.deepEqual([seen.givenName, seen.familyName], ['Grace', 'Hopper']);

  // A picture made here, uploaded: shown on the page, and the API answers its URL.
  const picture = page.getByRole('region', { name: 'Picture' });
  await picture
    .getByLabel('Upload a picture')
    .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: solidPng(96, 96, [124, 58, 237]) });
  await picture.getByText('Your picture is saved.').waitFor();
  const shown = picture.getByRole('img', { name: 'Grace Hopper' });
  await shown.waitFor();
  await page.waitForFunction(() => (document.querySelector('img.avatar') as HTMLImageElement | null)?.naturalWidth === 96);
  const withPicture = await ws.call<{ avatarImageUrl?: string }>('GET', `/v1/clients/${clientId}`);
  assert.match(
    withPicture.avatarImageUrl ?? '',
    new RegExp(`^${portal.server.base}/portal/${ws.workspaceId}/api/avatars/${clientId}/[0-9a-f]{64}$`),
  );
  assert.equal(await shown.getAttribute('src'), new URL(withPicture.avatarImageUrl ?? '').pathname);
  await checkPage(v, 'account-profile-picture-320');

  // Something that is not a picture is refused before it is sent.
  await picture.getByLabel('Upload a picture').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await picture.getByText('Choose a PNG, JPEG, WebP or GIF image.').waitFor();
  await shown.waitFor();

  // E-mails off: a notification comes to the portal, no e-mail is queued for it.
  const emails = page.getByRole('form', { name: 'Notifications' });
  const box = emails.getByLabel('E-mail me notifications');
  assert.equal(await box.isChecked(), true);
  // With the keyboard: Space unticks the box, Tab reaches Save, Enter saves.
  await box.focus();
  await page.keyboard.press('Space');
  assert.equal(await box.isChecked(), false);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Save');
  await page.keyboard.press('Enter');
  await page.getByText('Notifications will no longer be e-mailed to you.').waitFor();
  const outbox = async () =>
    (
      await portal.http<{ data: { to: string; subject: string }[] }>('GET', `/admin/workspaces/${ws.workspaceId}/outbox`, {
        authorization: `Bearer ${ADMIN_TOKEN}`,
      })
    ).body.data.filter((mail) => mail.to === 'grace@acme.test' && mail.subject === 'Your invoice');
  const sent = await ws.call<{ deliveryTargets: Record<string, unknown> }>('POST', '/v1/notifications', {
    senderId: staff.body.id,
    recipientClientId: clientId,
    deliveryTargets: { inProduct: { title: 'Your invoice is ready' }, email: { subject: 'Your invoice', body: 'It is ready.' } },
  });
  assert.deepEqual(Object.keys(sent.deliveryTargets), ['inProduct']);
  assert.deepEqual(await outbox(), [], 'no e-mail');

  // The profile unreachable: said so, with Try again.
  await page.route('**/api/profile', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: '{"code":"unavailable","message":"Storage is unavailable; retry shortly.","data":null}',
    }),
  );
  await page.reload();
  await arrived(v, 'account-profile-unavailable-320', 'Your account');
  await page.getByText('Storage is unavailable; retry shortly.').waitFor();
  await page.unroute('**/api/profile');

  // Then it is back: what was saved shows; the picture is removed.
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.getByRole('form', { name: 'Your name' }).waitFor();
  await checkPage(v, 'account-profile-saved-320');
  assert.equal(await page.getByRole('form', { name: 'Your name' }).getByLabel('Family name').inputValue(), 'Hopper');
  assert.equal(await page.getByRole('form', { name: 'Notifications' }).getByLabel('E-mail me notifications').isChecked(), false);
  await page.getByRole('region', { name: 'Picture' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Your picture is removed.').waitFor();
  await page.getByRole('img', { name: 'No picture yet' }).waitFor();
  assert.equal((await ws.call<{ avatarImageUrl?: string }>('GET', `/v1/clients/${clientId}`)).avatarImageUrl, undefined);
  assertSameOrigin(portal, v);

  // At 1280 px, with a picture again.
  const wide = await visit(portal, 1280);
  t.after(() => wide.context.close());
  await wide.context.addCookies(await v.context.cookies());
  await wide.page.goto(`${ws.pages}/account`);
  await arrived(wide, 'account-profile-1280', 'Your account');
  await wide.page
    .getByRole('region', { name: 'Picture' })
    .getByLabel('Upload a picture')
    .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: solidPng(64, 64, [15, 118, 110]) });
  await wide.page.getByText('Your picture is saved.').waitFor();
  await wide.page.waitForFunction(() => (document.querySelector('img.avatar') as HTMLImageElement | null)?.naturalWidth === 64);
  await checkPage(wide, 'account-profile-picture-1280');
  assertSameOrigin(portal, wide);
});
