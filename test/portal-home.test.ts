// Rule (issue 44, point 1): the signed-in portal is the workspace's own place: its name and colour on every page, the
// sections with what waits in each (the navigation's badge, the home page's list), the person's notifications, and a
// notification e-mail's link that lands on that notification's page, through sign-in when the person is signed out.
// In headless Chromium against a `portal serve` process: at 320 px throughout, the home page at 1280 px too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  ADMIN_TOKEN,
  PASSWORD,
  type PortalServer,
  arrived,
  assertSameOrigin,
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

test('home, notifications and an e-mail link, in the workspace’s name and colour', { timeout: 120_000 }, async (t) => {
  const ws = await newWorkspace(portal, 'Acme');
  const branded = await portal.http(
    'PATCH',
    `/admin/workspaces/${ws.workspaceId}`,
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    {
      brandColor: '#7c3aed',
    },
  );
  assert.equal(branded.status, 200, JSON.stringify(branded.body));
  const staff = await portal.http<{ id: string }>(
    'POST',
    `/admin/workspaces/${ws.workspaceId}/internal-users`,
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    { givenName: 'Sam', familyName: 'Staff', email: 'sam@acme.test' },
  );
  assert.equal(staff.status, 201, JSON.stringify(staff.body));
  const sender = staff.body;

  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  const clientId = await signedInClient(ws, v, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' });
  await arrived(v, 'home-empty-320', 'Home');
  await page.getByText('Nothing needs you right now.').waitFor();
  const bar = await page.getByRole('banner').evaluate((header) => getComputedStyle(header).borderTopColor);
  assert.equal(bar, 'rgb(124, 58, 237)', 'the workspace’s colour');
  await page.getByRole('banner').getByRole('link', { name: 'Acme' }).waitFor();

  const notification = await ws.call<{ id: string }>('POST', '/v1/notifications', {
    senderId: sender.id,
    recipientClientId: clientId,
    deliveryTargets: {
      inProduct: { title: 'Your invoice is ready', body: 'Invoice 42 is ready to pay.' },
      email: { subject: 'Your invoice', body: 'It is ready.', title: 'See it' },
    },
  });

  // What waits: counted at the next navigation, in the navigation and on the home page.
  const nav = page.getByRole('navigation', { name: 'Portal' });
  await nav.getByRole('link', { name: 'Account' }).click();
  await arrived(v, 'account-320', 'Your account');
  await page.getByRole('banner').getByRole('link', { name: 'Acme' }).click();
  await arrived(v, 'home-waiting-320', 'Home');
  await nav.getByRole('link', { name: 'Notifications (1) waiting' }).waitFor();
  await page.getByRole('link', { name: '1 unread notification' }).click();
  await arrived(v, 'notifications-320', 'Notifications');
  await page.getByRole('link', { name: 'Your invoice is ready' }).click();
  await arrived(v, 'notification-320', 'Your invoice is ready');
  await page.getByText('Invoice 42 is ready to pay.').waitFor();

  // Opened, it is read: no longer waiting; the list shows it only with the read ones.
  await nav.getByRole('link', { name: 'Notifications', exact: true }).click();
  await arrived(v, 'notifications-none-unread-320', 'Notifications');
  await page.getByText('You have no unread notifications.').waitFor();
  await page.getByLabel('Show read ones too').check();
  await page.getByRole('link', { name: 'Your invoice is ready' }).click();
  await arrived(v, 'notification-read-320', 'Your invoice is ready');
  await page.getByRole('button', { name: 'Mark as unread' }).click();
  await page.getByText('Unread.').waitFor();

  // Signed out, the e-mail's link leads through sign-in to the notification's page.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await arrived(v, 'sign-in-branded-320', 'Sign in');
  await page.getByRole('banner').getByRole('link', { name: 'Acme' }).waitFor();
  await page.goto(`${portal.server.base}/notifications/${notification.id}`);
  await arrived(v, 'sign-in-from-link-320', 'Sign in');
  const byPassword = page.getByRole('region', { name: 'With your password' });
  await page.getByLabel('E-mail', { exact: true }).fill('grace@acme.test');
  await byPassword.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await byPassword.getByRole('button', { name: 'Sign in', exact: true }).click();
  await arrived(v, 'notification-after-sign-in-320', 'Your invoice is ready');
  assert.equal(page.url(), `${ws.pages}/notifications/${notification.id}`);
  assertSameOrigin(portal, v);

  const wide = await visit(portal, 1280);
  t.after(() => wide.context.close());
  await wide.page.goto(`${ws.pages}/sign-in`);
  await wide.page.getByLabel('E-mail', { exact: true }).fill('grace@acme.test');
  const wideByPassword = wide.page.getByRole('region', { name: 'With your password' });
  await wideByPassword.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await wideByPassword.getByRole('button', { name: 'Sign in', exact: true }).click();
  await arrived(wide, 'home-1280', 'Home');
  assertSameOrigin(portal, wide);
});
