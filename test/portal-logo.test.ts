// Rule (issue 44, point 1): the workspace's logo shows beside its name in the portal's bar, on the signed-in pages and
// on the sign-in pages, at 320 and 1280 px: decorative (alt="", the name is written beside it), from the portal's own
// origin, in a box of fixed height whose width comes from the image's size, so that nothing moves when it loads (no
// layout shift at all). Without a logo the name stands alone, and the bar is as high.
// In headless Chromium against a `portal serve` process.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { logoPng } from './helpers/images.js';
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

/** PUT /admin/workspaces/{id}/logo with the image's bytes: its logoUrl. */
async function setLogo(workspaceId: string, bytes: Buffer): Promise<string> {
  const res = await fetch(`${portal.server.base}/admin/workspaces/${workspaceId}/logo`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' },
    body: new Uint8Array(bytes),
  });
  const body = (await res.json()) as { logoUrl: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.logoUrl;
}

/**
 * Layout shifts since the page's load (PerformanceObserver's buffered entries): their total score, and how many moved
 * something in the bar (the logo, the name beside it, the bar itself).
 */
async function layoutShift(page: Page): Promise<{ total: number; inBar: number }> {
  return page.evaluate(
    () =>
      new Promise<{ total: number; inBar: number }>((resolve) => {
        let total = 0;
        let inBar = 0;
        type Shift = PerformanceEntry & { value: number; sources: { node?: Node | null }[] };
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as Shift[]) {
            total += entry.value;
            const inHeader = (node?: Node | null) => {
              const element = node instanceof Element ? node : (node?.parentElement ?? null);
              return element?.closest('header') != null;
            };
            if (entry.sources.some((source) => inHeader(source.node))) inBar++;
          }
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve({ total, inBar }), 300);
      }),
  );
}

/** The bar's logo: loaded, decorative, 32 px high and as wide as the image's proportions make it, left of the name. */
async function assertLogoInBar(page: Page, path: string, name: string) {
  const banner = page.getByRole('banner');
  const link = banner.getByRole('link', { name, exact: true });
  await link.waitFor();
  const logo = banner.locator('img.brand-logo');
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('header img.brand-logo');
    return img?.complete === true && img.naturalWidth > 0;
  });
  assert.equal(await logo.getAttribute('src'), path, 'from this origin');
  assert.equal(await logo.getAttribute('alt'), '', 'decorative: the name is beside it');
  assert.deepEqual([await logo.getAttribute('width'), await logo.getAttribute('height')], ['96', '64'], 'its box known before it loads');
  const box = await logo.boundingBox();
  const text = await link.locator('span').boundingBox();
  assert.ok(box && text, 'both drawn');
  assert.deepEqual([Math.round(box.width), Math.round(box.height)], [48, 32]);
  assert.ok(box.x + box.width <= text.x, 'the logo left of the name');
  assert.ok(Math.abs(box.y + box.height / 2 - (text.y + text.height / 2)) <= 2, 'centred on the name’s line');
}

test('the logo in the bar: signed in and on the sign-in page, at 320 and 1280 px, with no layout shift', {
  timeout: 120_000,
}, async (t) => {
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

  // Without a logo first: the name alone, and the bar's height (which the logo must not change).
  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  await signedInClient(ws, v, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' });
  await arrived(v, 'logo-none-320', 'Home');
  assert.equal(await page.getByRole('banner').locator('img').count(), 0);
  const barWithout = (await page.getByRole('banner').boundingBox())?.height;

  const logoUrl = await setLogo(ws.workspaceId, logoPng());
  const path = new URL(logoUrl).pathname;
  assert.equal(path, `/portal/${ws.workspaceId}/api/workspace/logo/${logoUrl.split('/').pop()}`);
  await page.reload();
  await arrived(v, 'logo-home-320', 'Home');
  await assertLogoInBar(page, path, 'Acme');
  assert.equal((await page.getByRole('banner').boundingBox())?.height, barWithout, 'the bar as high as without a logo');
  assert.deepEqual(await layoutShift(page), { total: 0, inBar: 0 }, 'nothing moved while the page and its logo loaded');

  // Signed out: the sign-in page's bar shows it too.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await arrived(v, 'logo-sign-in-320', 'Sign in');
  await assertLogoInBar(page, path, 'Acme');
  await page.reload();
  await arrived(v, 'logo-sign-in-reloaded-320', 'Sign in');
  await assertLogoInBar(page, path, 'Acme');
  assert.equal((await layoutShift(page)).inBar, 0, 'the sign-in bar: its name and logo arrive together, and nothing else in it moves');
  assertSameOrigin(portal, v);

  const wide = await visit(portal, 1280);
  t.after(() => wide.context.close());
  await wide.page.goto(`${ws.pages}/sign-in`);
  await arrived(wide, 'logo-sign-in-1280', 'Sign in');
  await assertLogoInBar(wide.page, path, 'Acme');
  await wide.page.getByLabel('E-mail', { exact: true }).fill('grace@acme.test');
  const byPassword = wide.page.getByRole('region', { name: 'With your password' });
  await byPassword.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await byPassword.getByRole('button', { name: 'Sign in', exact: true }).click();
  await arrived(wide, 'logo-home-1280', 'Home');
  await assertLogoInBar(wide.page, path, 'Acme');
  await wide.page.reload();
  await arrived(wide, 'logo-home-reloaded-1280', 'Home');
  // At this width the frame replacing its loading page moves the body (as it does without a logo): nothing in the bar moved.
  assert.equal((await layoutShift(wide.page)).inBar, 0, 'nothing in the bar moved while the page and its logo loaded');
  assertSameOrigin(portal, wide);
});
