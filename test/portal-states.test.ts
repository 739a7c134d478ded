// Rule (issue 44: every page has its empty, loading and error states): each signed-in section page of the portal
// (home and the eight sections) read by a client, and each staff section read by an admin, in Chromium: (1) while its API requests are held: its loading
// state is shown and announced (a status region), the page's heading focused, axe-clean; released, the page shows
// what the API answered (here, each section empty: its empty state); (2) when the API fails, answering 500 or not
// answering at all (the network fails): the page says so in an alert with **Try again**, axe-clean; the API back,
// Try again reads the page again and it shows. The frame itself too (the sign-in API's session failing). One
// server, one browser, at 320 px; screenshots test/artifacts/portal-<section>-loading-320.png and
// portal-<section>-error-320.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { WAIT_MS } from './helpers/browser.js';
import {
  type PortalServer,
  type Visit,
  arrived,
  assertSameOrigin,
  newWorkspace,
  signedInClient,
  signedInStaff,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

let portal: PortalServer;
before(async () => {
  portal = await startPortal();
});
after(() => portal?.close());

/** Every request of the `/v1` API the pages make, under the portal's path (the sign-in API's `/api` is apart). */
const V1 = '**/portal/*/v1/**';

/** The API as the server's error handler answers an unexpected failure. */
const FAILED = { code: 'internal_error', message: 'Internal server error.', data: { requestId: 'req-states' } };

/** Holds every `/v1` request of the tab until `release` lets them (and those after) through. */
async function holding(page: Page) {
  const held: Route[] = [];
  let released = false;
  const hold = (route: Route) => {
    if (released) return route.continue();
    held.push(route);
  };
  await page.route(V1, hold);
  return {
    /** How many requests are held now. */
    count: () => held.length,
    async release() {
      released = true;
      await page.unroute(V1, hold);
      await Promise.all(held.map((route) => route.continue().catch(() => {})));
    },
  };
}

/** Fails every `/v1` request of the tab (a 500, or no answer at all) until `restore`. */
async function failing(page: Page, how: '500' | 'network') {
  const fail = (route: Route) =>
    how === '500' ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify(FAILED) }) : route.abort('failed');
  await page.route(V1, fail);
  return { restore: () => page.unroute(V1, fail) };
}

/** What the alert says for each failure (the API's message and its code; the kit's words when nothing answered). */
const SAID = {
  '500': /Internal server error\./,
  network: /The server could not be reached\. Check your connection and try again\./,
};

/** The sections, by their navigation link: the page's heading, what it says while loading, and when it is empty. */
const SECTIONS: { path: string; link: RegExp; title: string; loading: string; empty: string; how: '500' | 'network' }[] = [
  { path: 'messages', link: /^Messages/, title: 'Messages', loading: 'Loading conversations…', empty: 'No conversations yet', how: '500' },
  {
    path: 'files',
    link: /^Files/,
    title: 'Files',
    loading: 'Loading your files…',
    empty: 'No files are shared with you yet.',
    how: 'network',
  },
  { path: 'billing', link: /^Billing/, title: 'Billing', loading: 'Loading invoices…', empty: 'No invoices yet.', how: '500' },
  { path: 'tasks', link: /^Tasks/, title: 'Tasks', loading: 'Loading tasks…', empty: 'No task for you yet.', how: 'network' },
  { path: 'forms', link: /^Forms/, title: 'Forms', loading: 'Loading forms…', empty: 'Nothing to fill in.', how: '500' },
  {
    path: 'contracts',
    link: /^Contracts/,
    title: 'Contracts',
    loading: 'Loading contracts…',
    empty: 'No contract waits for a signature.',
    how: 'network',
  },
  { path: 'apps', link: /^Apps/, title: 'Apps', loading: 'Loading the apps…', empty: 'No apps are here for you yet.', how: '500' },
  {
    path: 'notifications',
    link: /^Notifications/,
    title: 'Notifications',
    loading: 'Loading notifications…',
    empty: 'You have no unread notifications.',
    how: 'network',
  },
];

/** The loading state's status region (announced politely as it appears). */
const loadingSaid = (v: Visit, words: string) => v.page.getByRole('status').filter({ hasText: words });

test('each section page shows its loading state, then its error state with Try again, which reads it again', {
  timeout: 180_000,
}, async (t) => {
  const ws = await newWorkspace(portal, 'Acme');
  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  await signedInClient(ws, v, { email: 'ada@acme.test', givenName: 'Ada', familyName: 'Lovelace' });
  const nav = page.getByRole('navigation', { name: 'Portal' });
  const home = () => page.getByRole('banner').getByRole('link', { name: 'Acme' }).click();

  // Home: what waits is being counted (the frame shows the page once 1.5 s have passed without the counts).
  let held = await holding(page);
  await page.reload();
  await arrived(v, 'home-loading-320', 'Home', { loading: true });
  await loadingSaid(v, 'Looking…').waitFor();
  assert.ok(held.count() > 0, 'the counts are held');
  await held.release();
  await page.getByText('Nothing needs you right now.').waitFor();

  // Home, the counts failing: said, with Try again; counted again once the API answers.
  let failure = await failing(page, '500');
  await nav.getByRole('link', { name: 'Account' }).click();
  await arrived(v, 'account-320', 'Your account');
  await home();
  const uncounted = page.getByRole('alert').filter({ hasText: 'could not be counted just now' });
  await uncounted.waitFor();
  assert.equal(
    await uncounted.locator('p').first().textContent(),
    'What waits in Messages, Billing, Tasks, Forms, Contracts and Notifications could not be counted just now.',
  );
  await arrived(v, 'home-error-320', 'Home');
  await failure.restore();
  await uncounted.getByRole('button', { name: 'Try again' }).click();
  await page.getByText('Nothing needs you right now.').waitFor();
  assert.equal(await uncounted.count(), 0);

  for (const section of SECTIONS) {
    // Loading: the page's requests held; its status said; then what the API answers.
    held = await holding(page);
    await nav.getByRole('link', { name: section.link }).click();
    await loadingSaid(v, section.loading).first().waitFor();
    await arrived(v, `${section.path}-loading-320`, section.title, { loading: true });
    assert.ok(await loadingSaid(v, section.loading).first().isVisible(), `${section.path}: still loading when pictured`);
    await held.release();
    await page.getByText(section.empty).first().waitFor();
    // Every list of the page loaded (forms and contracts have two; the first's empty state can come before the second).
    await loadingSaid(v, section.loading).first().waitFor({ state: 'detached' });

    // The API failing: an alert saying so, with Try again; the API back, Try again shows the page.
    await home();
    await page.getByRole('heading', { level: 1, name: 'Home', exact: true }).waitFor();
    failure = await failing(page, section.how);
    await nav.getByRole('link', { name: section.link }).click();
    const alerts = page.getByRole('alert');
    await alerts.first().waitFor();
    await arrived(v, `${section.path}-error-320`, section.title);
    for (const alert of await alerts.all()) {
      assert.match((await alert.textContent()) ?? '', SAID[section.how], `${section.path}: the alert says what failed`);
      await alert.getByRole('button', { name: 'Try again' }).waitFor();
    }
    await failure.restore();
    // Each failed read has its own Try again (billing: invoices and subscriptions; forms and contracts: two lists).
    // (the last first: a list read again takes its alert away, and the others keep their places).
    for (const button of (await page.getByRole('button', { name: 'Try again' }).all()).reverse()) await button.click();
    await page.getByText(section.empty).first().waitFor({ timeout: WAIT_MS });
    await page.waitForFunction(() => document.querySelectorAll('[role="alert"]').length === 0, null, { timeout: WAIT_MS });
  }

  // The frame itself (on the last section's page): who is signed in cannot be read (the sign-in API fails): said,
  // with Try again, which opens the page.
  const session = (route: Route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify(FAILED) });
  await page.route('**/portal/*/api/session', session);
  await page.reload();
  await arrived(v, 'frame-error-320', 'Something went wrong');
  await page.getByRole('alert').getByText('Internal server error.').waitFor();
  await page.unroute('**/portal/*/api/session', session);
  await page.getByRole('alert').getByRole('button', { name: 'Try again' }).click();
  await arrived(v, 'frame-again-320', 'Notifications');
  assertSameOrigin(portal, v);
});

/** The staff's sections (an admin's navigation): each page's heading is its link's name. */
const STAFF_SECTIONS = ['Clients', 'Companies', 'Messages', 'Files', 'Billing', 'Tasks', 'Forms', 'Contracts', 'Apps', 'Team'];

/** What the staff inbox says when its event stream is lost (the failing API fails the stream too). */
const STREAM_LOST = /New messages no longer appear by themselves/;

/** The page's loading states (the kit's `Loading`, class `loading`) and its alerts, each with Try again. */
const loadingStates = (page: Page) => page.locator('.loading');

test('each staff section page shows its loading state, then its error state with Try again, which reads it again', {
  timeout: 180_000,
}, async (t) => {
  const ws = await newWorkspace(portal, 'Acme');
  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  await signedInStaff(portal, ws, v, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
  const nav = page.getByRole('navigation', { name: 'Portal' });
  assert.deepEqual(
    (await nav.getByRole('link').allTextContents())
      .map((name) => name.replace(/\s*\(.*$/, '').trim())
      .filter((name) => !['Notifications', 'Account'].includes(name)),
    STAFF_SECTIONS,
    'the sections an admin sees (Notifications and Account are the client test’s)',
  );
  const home = async () => {
    await page.getByRole('banner').getByRole('link', { name: 'Acme' }).click();
    await page.getByRole('heading', { level: 1, name: 'Home', exact: true }).waitFor();
  };
  for (const [at, title] of STAFF_SECTIONS.entries()) {
    const how = at % 2 === 0 ? '500' : 'network';
    const name = `staff-${title.toLowerCase()}`;
    // Loading: the page's requests held; its status said, the heading focused; then the page as the API answers.
    const held = await holding(page);
    await nav.getByRole('link', { name: new RegExp(`^${title}`) }).click();
    await loadingStates(page).first().waitFor({ timeout: WAIT_MS });
    await arrived(v, `${name}-loading-320`, title, { loading: true });
    assert.equal(
      await page
        .getByRole('status')
        .filter({ hasText: /^Loading/ })
        .first()
        .isVisible(),
      true,
      `${title}: loading said`,
    );
    await held.release();
    await page.waitForFunction(() => !document.querySelector('.loading'), null, { timeout: WAIT_MS });
    assert.equal(await page.getByRole('alert').count(), 0, `${title}: loaded, no alert`);

    // The API failing (a 500, or no answer): each read that failed is an alert with Try again; the API back, it reads again.
    await home();
    const failure = await failing(page, how);
    await nav.getByRole('link', { name: new RegExp(`^${title}`) }).click();
    const alerts = page.getByRole('alert');
    await alerts.first().waitFor({ timeout: WAIT_MS });
    await page.waitForFunction(() => !document.querySelector('.loading'), null, { timeout: WAIT_MS });
    await arrived(v, `${name}-error-320`, title);
    // Each alert says what failed (Messages: its live updates stopped too); each failed read has Try again.
    const said = new RegExp(`${SAID[how].source}|${STREAM_LOST.source}`);
    for (const alert of await alerts.all()) assert.match((await alert.textContent()) ?? '', said, `${title}: the alert says what failed`);
    const tryAgain = page.getByRole('button', { name: 'Try again' });
    assert.ok((await tryAgain.count()) > 0, `${title}: Try again`);
    await failure.restore();
    for (const button of (await tryAgain.all()).reverse()) await button.click();
    // Until every read is answered (a read just asked for may not show its loading state yet).
    await page.waitForFunction(
      () => !document.querySelector('.loading') && ![...document.querySelectorAll('button')].some((b) => b.textContent === 'Try again'),
      null,
      { timeout: WAIT_MS },
    );
    assert.equal(await tryAgain.count(), 0, `${title}: read again`);
    await home();
  }
  assertSameOrigin(portal, v);
});
