// Rule (issue 45, point 5: "Team (admins only)"): an admin signed in to the portal finds the workspace's internal
// users on /team, invites a member of staff limited to one company (the invite e-mail is queued), changes its role
// and removes it; a member of staff (not an admin) has no Team link and /team is not found; a removed member's open
// tab is signed out on its next request. On both backends, one browser each; axe-clean at 320 and 1280 px (the first).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WAIT_MS } from './helpers/browser.js';
import { BACKENDS, type Backend } from './helpers/harness.js';
import {
  ADMIN_TOKEN,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInStaff,
  startPortal,
  reached,
  visit,
} from './helpers/portal-pages.js';

for (const [at, backend] of BACKENDS.entries()) {
  test(`an admin invites, changes and removes members of the team; staff have no team page (${backend})`, { timeout: 180_000 }, () =>
    staffTeam(backend, at === 0),
  );
}

/** `shots`: screenshots and axe on each page (`arrived`, `checkPage`), on the first backend; on the second, the rule alone. */
async function staffTeam(backend: Backend, shots: boolean) {
  const look = shots ? arrived : reached;
  const check = shots ? checkPage : async () => {};
  const portal = await startPortal({ backend });
  try {
    const ws = await newWorkspace(portal, 'Acme');
    const north = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Northwind' });
    await ws.call('POST', '/v1/companies', { name: 'Contoso' });
    const v = await visit(portal, 320);
    const other = await visit(portal, 1280);
    const [, rae] = await Promise.all([
      signedInStaff(portal, ws, v, { email: 'ann@acme.test', givenName: 'Ann', familyName: 'Admin', role: 'admin' }),
      signedInStaff(portal, ws, other, { email: 'rae@acme.test', givenName: 'Rae', familyName: 'Staff' }),
    ]);

    // Rae (staff) has no Team link, and /team is not found for her.
    const raeNav = other.page.getByRole('navigation', { name: 'Portal' });
    await raeNav.getByRole('link', { name: 'Files' }).waitFor();
    assert.equal(await raeNav.getByRole('link', { name: 'Team' }).count(), 0, 'no Team link for staff');
    await other.page.goto(`${ws.pages}/team`);
    await other.page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();

    // Ann (admin) opens the team: herself and Rae.
    const { page } = v;
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Team' }).click();
    await look(v, 'staff-team-320', 'Team');
    const team = page.locator('ul.team');
    await team.getByText('Rae Staff').waitFor();
    assert.deepEqual((await team.locator('li > div:first-child strong').allTextContents()).sort(), ['Ann Admin', 'Rae Staff']);

    // She invites Sam, limited to Northwind (found by its name).
    await page.getByLabel('Given name').fill('Sam');
    await page.getByLabel('Family name').fill('Smith');
    await page.getByLabel('E-mail').fill('sam@acme.test');
    const invite = page.locator('form.invite');
    await invite.getByLabel('Every company').uncheck();
    await invite.getByLabel('Find a company').fill('North');
    await invite.getByLabel('Northwind').check();
    assert.equal(await invite.getByLabel('Contoso').count(), 0, 'the search finds Northwind only');
    await invite.getByRole('button', { name: 'Invite staff' }).click();
    await page.getByRole('status').getByText('Sam Smith was invited: an e-mail to sam@acme.test lets them choose a password.').waitFor();
    const users = await ws.call<{
      data: { id: string; email: string; role: string; companyAccessList: string[]; isClientAccessLimited: boolean }[];
    }>('GET', '/v1/internal-users');
    const sam = users.data.find((u) => u.email === 'sam@acme.test');
    assert.ok(sam);
    assert.deepEqual([sam.role, sam.isClientAccessLimited, sam.companyAccessList], ['staff', true, [north.id]]);
    await team.getByText('Sam Smith').waitFor();
    const outbox = await portal.http<{ data: { to: string; subject: string; text?: string }[] }>(
      'GET',
      `/admin/workspaces/${ws.workspaceId}/outbox`,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    const mail = outbox.body.data.filter((m) => m.to === 'sam@acme.test');
    assert.equal(mail.length, 1, JSON.stringify(outbox.body.data));
    assert.equal(mail[0]?.subject, 'You are invited to Acme');
    assert.match(mail[0]?.text ?? '', /reset-password/);
    await page.setViewportSize({ width: 1280, height: 800 });
    await check(v, 'staff-team-1280');
    await page.setViewportSize({ width: 320, height: 800 });

    // She makes Sam an admin.
    await team.getByRole('button', { name: 'Change Sam Smith' }).click();
    const edit = page.getByRole('form', { name: 'Change Sam Smith' });
    await edit.getByLabel('Role').selectOption('admin');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Sam Smith’s access was changed.').waitFor();
    assert.equal((await ws.call<{ role: string }>('GET', `/v1/internal-users/${sam.id}`)).role, 'admin');

    // She removes Sam, then Rae, each after a confirmation.
    for (const [name, id] of [
      ['Sam Smith', sam.id],
      ['Rae Staff', rae],
    ] as const) {
      page.once('dialog', (dialog) => void dialog.accept());
      await team.getByRole('button', { name: `Remove ${name}` }).click();
      await page.getByRole('status').getByText(`${name} was removed from the team.`).waitFor();
      const gone = await portal.http('GET', `/v1/internal-users/${id}`, { 'x-api-key': ws.apiKey });
      assert.equal(gone.status, 404, `${name} is gone`);
    }
    await page.waitForFunction(() => document.querySelectorAll('ul.team > li').length === 1, undefined, { timeout: WAIT_MS });

    // Rae's open tab is signed out on its next request.
    await other.page.goto(`${ws.pages}/files`);
    await other.page.waitForURL(/\/sign-in/, { timeout: WAIT_MS });
    assertSameOrigin(portal, v);
    await v.context.close();
    await other.context.close();
  } finally {
    await portal.close();
  }
}
