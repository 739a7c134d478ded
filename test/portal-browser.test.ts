// The portal's pages (portal/, served at /portal/{workspaceId}/) in a real browser: headless chromium driven by
// playwright-core against a `portal serve` process on SQLite, sending its e-mails to a local SMTP server. One client
// goes through every way in: (a) invited through the API, accepts with a password, lands on their page, signs out;
// (b) signs in by an e-mailed link; (c) turns TOTP on, signs out, signs in by password and passes the TOTP step;
// (d) resets a forgotten password by e-mail, signs in with it and a recovery code, changes it; (e) signs in with
// Google (a real OpenID provider, oidc-provider, started here), and someone unknown to the portal is refused. At
// 320 px wide throughout; every page is checked with axe-core (no WCAG A/AA violation at all), its heading focused,
// and no request leaves the server's origin. Screenshots: test/artifacts/portal-<page>.png.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { base32Decode, hotp, totpStep } from '../src/lib/totp.js';
import { ARTIFACTS, WAIT_MS, assertAccessible, ensureBuilt, launchBrowser, scrollsSideways } from './helpers/browser.js';
import { type Server, freePort, jsonRequest, serve, stop } from './helpers/server.js';
import { type OidcTestProvider, startOidcProvider } from './helpers/oidc-provider.js';
import { type Visit, arrived, checkPage as check } from './helpers/portal-pages.js';
import { type ReceivedMail, partOf, smtpServer } from './helpers/smtp.js';

const ADMIN_TOKEN = 'portal-pages-test-admin-token-0123456789';
const EMAIL = 'grace@acme.test';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new and longer passphrase';
const TEST_MS = 120_000;

let server: Server;
let browser: Browser;
let smtp: Awaited<ReturnType<typeof smtpServer>>;
let dir: string;
let op: OidcTestProvider;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'portal-pages-'));
  smtp = await smtpServer({ after: (fn) => cleanups.push(fn) });
  // The links in e-mails and invites are made from PORTAL_URL: the server must listen where it says.
  const port = await freePort();
  op = await startOidcProvider({
    clients: [
      { clientId: 'portal', clientSecret: 'portal-secret', redirectUris: [`http://127.0.0.1:${port}/portal/oidc/google/callback`] },
    ],
  });
  cleanups.push(() => op.close());
  server = await serve({
    OIDC_PROVIDERS: 'google',
    OIDC_GOOGLE_ISSUER: op.issuer,
    OIDC_GOOGLE_CLIENT_ID: 'portal',
    OIDC_GOOGLE_CLIENT_SECRET: 'portal-secret',
    DATABASE_URL: `sqlite:${join(dir, 'portal.db')}`,
    PORTAL_ADMIN_TOKEN: ADMIN_TOKEN,
    PORT: String(port),
    PORTAL_URL: `http://127.0.0.1:${port}`,
    SMTP_URL: smtp.url,
    FILES_DIR: join(dir, 'files'),
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (server) await stop(server.child);
  for (const cleanup of cleanups) await cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const http = <T>(method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  jsonRequest<T>(server.base, method, path, headers, body);

/** The text of an e-mail as received: its text part (beside its HTML one), decoded (nodemailer encodes long lines as quoted-printable). */
function textOf(mail: ReceivedMail): string {
  const text = partOf(mail, 'text/plain');
  assert.ok(text !== undefined, `a text part in ${mail.raw}`);
  return text;
}

/** The link (with its `#token`) to `page` in the next e-mail to `to` after the first `seen` ones (waits WAIT_MS at most). */
async function linkInMail(to: string, page: string, seen: number): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const mails = smtp.received.filter((mail) => mail.to.includes(to));
    const mail = mails[seen];
    if (mail) {
      const link = new RegExp(`(http://\\S+/${page})#([A-Za-z0-9_-]+)`).exec(textOf(mail));
      assert.ok(link, `a link to ${page} in ${textOf(mail)}`);
      return link[0];
    }
    assert.ok(Date.now() < deadline, `an e-mail to ${to} within ${WAIT_MS} ms`);
    await sleep(100);
  }
}
const mailsTo = (to: string) => smtp.received.filter((mail) => mail.to.includes(to)).length;

/** A code of the authenticator for `step`, and one that is none of the codes the server would take now. */
const codeAt = (secret: string, step: number) => hotp(base32Decode(secret), step);
function wrongCode(secret: string): string {
  const now = totpStep(Date.now());
  const valid = new Set([-2, -1, 0, 1, 2].map((offset) => codeAt(secret, now + offset)));
  return ['000000', '111111', '222222', '333333', '444444', '555555'].find((code) => !valid.has(code)) as string;
}

test('a client is invited, accepts, signs in by e-mailed link, turns TOTP on, signs in with password and code, resets the password', {
  timeout: TEST_MS,
}, async (t) => {
  const created = await http<{ workspaceId: string; apiKey: string }>(
    'POST',
    '/admin/workspaces',
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    { name: 'Acme' },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { workspaceId, apiKey } = created.body;
  const pages = `${server.base}/portal/${workspaceId}`;

  const context = await browser.newContext({ viewport: { width: 320, height: 720 }, baseURL: server.base });
  t.after(() => context.close());
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  const page = await context.newPage();
  const v: Visit = { context, page, requests: [], problems: [] };
  page.on('request', (request) => v.requests.push(request.url()));
  page.on('pageerror', (error) => v.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) v.problems.push(`CSP: ${message.text()}`);
  });
  const signOut = async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await arrived(v, 'sign-in', 'Sign in');
  };
  let recoveryCodes: string[] = [];
  // Signed in, the client lands on the home page of the workspace's portal, then opens their account from its navigation.
  const home = async (name: string) => {
    await arrived(v, name, 'Home');
    await page.getByRole('banner').getByRole('link', { name: 'Acme' }).waitFor();
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Account' }).click();
    await arrived(v, `${name}-account`, 'Your account');
    await page.getByText(`You are signed in as Grace Hopper (${EMAIL}), a client.`).waitFor();
  };

  await t.test('(a) the invite: a password chosen, the client lands on their page, then signs out', async () => {
    const invited = await http<{ id: string; status: string; inviteUrl: string }>(
      'POST',
      '/v1/clients?sendInvite=true',
      { 'x-api-key': apiKey },
      { email: EMAIL, givenName: 'Grace', familyName: 'Hopper' },
    );
    assert.equal(invited.status, 200, JSON.stringify(invited.body));
    assert.equal(invited.body.status, 'invited');
    assert.ok(invited.body.inviteUrl.startsWith(`${pages}/invite#`), invited.body.inviteUrl);
    assert.equal(await linkInMail(EMAIL, 'invite', 0), invited.body.inviteUrl, 'the same link was e-mailed');

    await page.goto(invited.body.inviteUrl);
    await arrived(v, 'invite', 'Accept your invitation');
    assert.equal(page.url(), `${pages}/invite`, 'the token is gone from the address bar');
    // Too short: the browser's own check stops it; past it, the server's message shows beside the field.
    const password = page.getByLabel('Choose a password');
    await password.evaluate((input) => input.removeAttribute('minlength'));
    await password.fill('too short');
    await page.getByRole('button', { name: 'Set the password and continue' }).click();
    await page.getByRole('alert').waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'alert', undefined, { timeout: WAIT_MS });
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    assert.match((await page.locator('.field-error').textContent()) ?? '', /^Must NOT have fewer than 12 characters\.$/);
    assert.match((await password.getAttribute('aria-describedby')) ?? '', /-error/);
    await check(v, 'invite-too-short');
    await password.fill(PASSWORD);
    await page.getByRole('button', { name: 'Set the password and continue' }).click();
    await home('home');
    assert.equal(page.url(), `${pages}/account`);
    await signOut();
  });

  await t.test('(b) a link by e-mail: asked for on the sign-in page, opened, "Sign in" pressed', async () => {
    const seen = mailsTo(EMAIL);
    // Issue 42, point 13: one e-mail field serves the password and the link; the link needs no password.
    assert.equal(await page.locator('input[type="email"]').count(), 1, 'one e-mail field on the sign-in page');
    await page.getByLabel('E-mail', { exact: true }).fill(EMAIL);
    await page.getByRole('region', { name: 'Or with a link by e-mail' }).getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await page.getByRole('status').filter({ hasText: 'a link is on its way' }).waitFor();
    await check(v, 'sign-in-link-sent');
    const link = await linkInMail(EMAIL, 'magic-link', seen);

    await page.goto(link);
    await arrived(v, 'magic-link', 'Sign in with your link');
    assert.equal(page.url(), `${pages}/magic-link`, 'the token is gone from the address bar');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await home('home-by-link');

    // The link worked once: opened again, it is refused, and the alert takes the focus.
    await page.goto(link);
    await arrived(v, 'magic-link-again', 'Sign in with your link');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: 'Ask for a new one' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'alert', undefined, { timeout: WAIT_MS });
    await check(v, 'magic-link-spent');
    await page.goto(`${pages}/`);
    await home('home-again');
  });

  await t.test('(c) TOTP turned on from the account page; then password, then the code', async () => {
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await arrived(v, 'enrol-mfa', 'Turn on two-step sign-in');
    const key = page.getByRole('textbox', { name: 'Key', exact: true });
    await key.waitFor();
    const grouped = await key.inputValue();
    assert.match(grouped, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the key in groups of four');
    const secret = grouped.replace(/ /g, '');
    assert.match(await page.getByRole('textbox', { name: 'Setup link' }).inputValue(), new RegExp(`^otpauth://totp/.+secret=${secret}&`));
    const enrolStep = totpStep(Date.now());
    await page.getByLabel('Code from the app').fill(codeAt(secret, enrolStep));
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await arrived(v, 'recovery-codes', 'Save your recovery codes');
    recoveryCodes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    assert.equal(recoveryCodes.length, 10);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await home('home-totp-on');
    await page.getByText('On: signing in also takes a code from your authenticator app.').waitFor();
    await signOut();

    const byPassword = page.getByRole('region', { name: 'With your password' });
    await page.getByLabel('E-mail', { exact: true }).fill(EMAIL);
    await byPassword.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await byPassword.getByRole('button', { name: 'Sign in', exact: true }).click();
    await arrived(v, 'totp', 'Enter your sign-in code');

    // A wrong code: the alert says so and takes the focus.
    await page.getByLabel('Code').fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'alert', undefined, { timeout: WAIT_MS });
    await check(v, 'totp-wrong-code');
    // Each code is taken once: the enrolment used this step's, so the next step's (inside the server's window).
    await page.getByLabel('Code').fill(codeAt(secret, enrolStep + 1));
    await page.getByRole('button', { name: 'Continue' }).click();
    await home('home-after-totp');
  });

  await t.test(
    '(d) a forgotten password: a reset link by e-mail, a new password, then password and a recovery code; a change',
    async () => {
      await signOut();
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await arrived(v, 'reset-password', 'Reset your password');
      const seen = mailsTo(EMAIL);
      await page.getByLabel('E-mail').fill(EMAIL);
      await page.getByRole('button', { name: 'E-mail me a reset link' }).click();
      await page.getByRole('status').filter({ hasText: 'a link is on its way' }).waitFor();
      await check(v, 'reset-password-sent');
      const link = await linkInMail(EMAIL, 'reset-password', seen);

      await page.goto(link);
      await arrived(v, 'reset-password-new', 'Choose a new password');
      assert.equal(page.url(), `${pages}/reset-password`, 'the token is gone from the address bar');
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
      await check(v, 'reset-password-done');
      await page.getByRole('link', { name: 'Sign in with the new password' }).click();
      await arrived(v, 'sign-in-after-reset', 'Sign in');

      const byPassword = page.getByRole('region', { name: 'With your password' });
      await page.getByLabel('E-mail', { exact: true }).fill(EMAIL);
      await byPassword.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await byPassword.getByRole('button', { name: 'Sign in', exact: true }).click();
      await arrived(v, 'totp-again', 'Enter your sign-in code');
      await page.getByLabel('Code').fill(recoveryCodes[0]);
      await page.getByRole('button', { name: 'Continue' }).click();
      await home('home-by-recovery-code');

      const passwordPanel = page.getByRole('region', { name: 'Password' });
      await passwordPanel.getByLabel('Current password').fill(NEW_PASSWORD);
      await passwordPanel.getByLabel('New password').fill(`${NEW_PASSWORD} again`);
      await passwordPanel.getByRole('button', { name: 'Change the password' }).click();
      await passwordPanel.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
      await check(v, 'home-password-changed');
    },
  );

  await t.test(
    '(e) Sign in with Google: the button, the provider, back signed in (after the TOTP step, with a recovery code)',
    async () => {
      await signOut();
      op.signInNext({ sub: 'google-grace', email: EMAIL });
      await page.getByRole('link', { name: 'Sign in with Google' }).click();
      await arrived(v, 'totp-after-google', 'Enter your sign-in code');
      await page.getByLabel('Code').fill(recoveryCodes[1]);
      await page.getByRole('button', { name: 'Continue' }).click();
      await home('home-by-google');
      // Someone the provider vouches for but who has no account here: back on the sign-in page, with the reason.
      await signOut();
      op.signInNext({ sub: 'google-stranger', email: 'stranger@elsewhere.test' });
      await page.getByRole('link', { name: 'Sign in with Google' }).click();
      await arrived(v, 'sign-in-google-refused', 'Sign in');
      await page.getByRole('alert').filter({ hasText: 'nobody here signs in with that account' }).waitFor();
      assert.equal(page.url(), `${pages}/sign-in?error=oidc_failed`);
    },
  );

  await t.test('an unknown ?error= shows a generic alert, never the query’s text', async () => {
    await page.goto(`${pages}/sign-in?error=${encodeURIComponent('Call +1 555 0100 to unlock your account')}`);
    await arrived(v, 'sign-in-error', 'Sign in');
    await page.getByRole('alert').filter({ hasText: 'That sign-in did not work. Try again.' }).waitFor();
  });

  // The provider's own pages are the only other origin (its redirects, in this test the one OpenID provider).
  const elsewhere = v.requests.filter((url) => !url.startsWith(`${server.base}/`) && !url.startsWith(`${op.issuer}/`));
  assert.deepEqual(elsewhere, [], 'no request left the origin');
  assert.ok(
    v.requests.some((url) => url.includes('/portal/assets/')),
    'the pages loaded their assets',
  );
});

// Rule (issue 42, point 13): `/` is a page a person can use: no WCAG A/AA violation, nothing sideways at 320 px,
// nothing from another origin, and its links reached and followed with the keyboard alone.
test('the landing page (/) at 320 px: accessible, its links followed by keyboard', { timeout: TEST_MS }, async () => {
  const context = await browser.newContext({ viewport: { width: 320, height: 720 }, baseURL: server.base });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto('/');
  await page.getByRole('heading', { level: 1, name: 'Portal Platform' }).waitFor({ timeout: WAIT_MS });
  await assertAccessible(page, 'the landing page', { everyWcag: true });
  assert.equal(await scrollsSideways(page), false, 'the landing page does not scroll sideways at 320 px');
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'landing.png'), fullPage: true });
  const focusedText = () => page.evaluate('document.activeElement?.textContent ?? ""') as Promise<string>;
  for (let presses = 0; presses < 6 && (await focusedText()) !== 'The API reference'; presses++) await page.keyboard.press('Tab');
  assert.equal(await focusedText(), 'The API reference', 'Tab reaches the API reference');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${server.base}/docs`, { timeout: WAIT_MS });
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(`${server.base}/`)),
    [],
    'no request left the origin',
  );
  await context.close();
});
