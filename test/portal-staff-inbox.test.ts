// Rule (issue 45 point 2: "staff see every conversation they may see, newest activity first, with what is unread,
// live; reply; start a conversation with a client, a company or a group"; tested: "a limited internal user sees only
// its companies' conversations", "staff and client exchange messages live across two server processes"). Acme has
// Northwind (Ada, who signs in, and Cy) and Contoso (Bob); the key opens a conversation with Ada, one with Bob and one
// with all of Contoso, then Bob writes, then Ada: the inbox lists Ada, Bob, Contoso (newest activity first; the
// conversations' default order, newest created first, would be the reverse), the two with messages marked new. Fay,
// an admin, at 1280 px: opens Ada's and replies (no longer new), starts one with Cy (found by the server's search)
// and one with Northwind, replying in each, and one with a group of Ada and Cy. Ada, in her own browser at 320 px,
// writes: Fay's inbox moves Ada's conversation to the top, marked new, and says so, without a reload. Lin, limited to
// Northwind, at 320 px sees Northwind's conversations only, in activity order; finds no Contoso company to start one
// with, starts one with Cy; Bob's is not found. Each on both backends (a `portal serve` each; screenshots and axe on
// the first). Then (the PostgreSQL job) two `portal serve` processes on one PostgreSQL database and Redis: Fay's inbox
// on one, Ada on the other, each seeing the other's message live.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { Redis } from 'ioredis';
import { WAIT_MS, launchBrowser } from './helpers/browser.js';
import { BACKENDS, migratedDatabaseUrl } from './helpers/harness.js';
import {
  ADMIN_TOKEN,
  type PortalServer,
  type Visit,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  signedInStaff,
  startPortal,
  visit,
  land,
} from './helpers/portal-pages.js';
import { freePort, jsonRequest, serve, stop } from './helpers/server.js';

/** The workspace's key writes several conversations faster than its burst of writes allows by default. */
const ROOMY_LIMITS = { RATE_LIMIT_WRITE_CAPACITY: '100' };

/** The inbox as the tab shows it, top first: each conversation's name, and "(new)" when it has unseen messages. */
const inboxRows = (v: Visit) =>
  v.page
    .locator('ul.conversations > li')
    .evaluateAll((items) =>
      items.map((li) => `${li.querySelector('.conversation-name')?.textContent}${li.classList.contains('has-new') ? ' (new)' : ''}`),
    );

/** Resolves once the tab's stream of messages is open (the server answers it once it follows the messages). */
const streaming = (v: Visit) => v.page.waitForResponse((response) => response.url().includes('/v1/messages/stream'), { timeout: WAIT_MS });

/** The polite announcement `words` was made in `v`'s tab. */
const announced = (v: Visit, words: string) => v.page.getByRole('status').filter({ hasText: words }).waitFor({ timeout: WAIT_MS });

/** The inbox's rows become `rows` (the stream's work: bounded by WAIT_MS, no sleep). */
async function inboxIs(v: Visit, rows: string[]) {
  await v.page
    .waitForFunction(
      (want) =>
        JSON.stringify(
          [...document.querySelectorAll('ul.conversations > li')].map(
            (li) => `${li.querySelector('.conversation-name')?.textContent}${li.classList.contains('has-new') ? ' (new)' : ''}`,
          ),
        ) === want,
      JSON.stringify(rows),
      { timeout: WAIT_MS },
    )
    .catch(() => undefined);
  assert.deepEqual(await inboxRows(v), rows);
}

async function send(v: Visit, words: string) {
  await v.page.getByLabel('Your message').fill(words);
  await v.page.getByRole('button', { name: 'Send' }).click();
  await v.page.locator('ol.messages > li.mine', { hasText: words }).waitFor({ timeout: WAIT_MS });
}

/** Messages in a channel, through the API (newest first): sender and text. */
async function messagesIn(ws: Awaited<ReturnType<typeof newWorkspace>>, channelId: string) {
  const page = await ws.call<{ data: { senderId: string; text: string }[] }>('GET', `/v1/messages?channelId=${channelId}`);
  return page.data.map((m) => [m.senderId, m.text]);
}

for (const [at, backend] of BACKENDS.entries()) {
  test(`the staff inbox: activity order, unread, live, reply, new conversations, a limited member (${backend})`, { timeout: 180_000 }, () =>
    inbox(backend, at === 0),
  );
}

async function inbox(backend: (typeof BACKENDS)[number], shots: boolean) {
  const portal = await startPortal({ backend, env: ROOMY_LIMITS });
  const c = await visit(portal, 320);
  const f = await visit(portal, 1280);
  try {
    const ws = await newWorkspace(portal, 'Acme');
    const north = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Northwind' });
    const contoso = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Contoso' });
    const adaId = await signedInClient(ws, c, {
      email: 'ada@northwind.test',
      givenName: 'Ada',
      familyName: 'Lovelace',
      companyId: north.id,
    });
    const cy = await ws.call<{ id: string }>('POST', '/v1/clients', {
      givenName: 'Cy',
      familyName: 'Young',
      email: 'cy@northwind.test',
      companyId: north.id,
    });
    const bob = await ws.call<{ id: string }>('POST', '/v1/clients', {
      givenName: 'Bob',
      familyName: 'Brown',
      email: 'bob@contoso.test',
      companyId: contoso.id,
    });
    const withAda = await ws.call<{ id: string }>('POST', '/v1/message-channels', { membershipType: 'individual', clientId: adaId });
    const withBob = await ws.call<{ id: string }>('POST', '/v1/message-channels', { membershipType: 'individual', clientId: bob.id });
    await ws.call('POST', '/v1/message-channels', { membershipType: 'company', companyId: contoso.id });
    await ws.call('POST', '/v1/messages', { channelId: withBob.id, senderId: bob.id, text: 'Bob here: the invoice?' });
    await ws.call('POST', '/v1/messages', { channelId: withAda.id, senderId: adaId, text: 'Ada here: hello.' });

    // Fay, an admin: Messages is her inbox, newest activity first, what she has not seen marked new.
    const fayId = await signedInStaff(portal, ws, f, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
    let listening = streaming(f);
    await f.page
      .getByRole('navigation', { name: 'Portal' })
      .getByRole('link', { name: /^Messages/ })
      .click();
    await land(f, shots, 'staff-inbox-1280', 'Messages');
    await inboxIs(f, ['Ada Lovelace (new)', 'Bob Brown (new)', 'Everyone at Contoso']);
    await f.page.getByText('Every client of the company, and staff · no messages yet').waitFor();
    assert.ok(
      f.requests.some((url) => url.includes('/v1/message-channels?') && url.includes('orderBy=lastMessageDate')),
      'the order is the server’s',
    );
    await listening;

    // She opens Ada's and replies: seen, and answered.
    const conversations = f.page.getByRole('list', { name: 'Conversations' });
    await conversations.getByRole('link', { name: 'Ada Lovelace New messages' }).click();
    await land(f, shots, 'staff-inbox-thread-1280', 'Ada Lovelace');
    await f.page.locator('ol.messages > li', { hasText: 'Ada here: hello.' }).waitFor();
    await send(f, 'Hello Ada, how can we help?');
    assert.deepEqual(await messagesIn(ws, withAda.id), [
      [fayId, 'Hello Ada, how can we help?'],
      [adaId, 'Ada here: hello.'],
    ]);

    // A conversation with Cy, found by the server's search.
    await f.page.getByRole('link', { name: 'All conversations' }).click();
    await land(f, false, '', 'Messages');
    const panel = f.page.getByRole('region', { name: 'New conversation' });
    await panel.getByLabel('Find clients').fill('cy');
    await panel.getByRole('radio', { name: 'Cy Young cy@northwind.test' }).check();
    assert.ok(
      f.requests.some((url) => url.includes('/v1/clients?') && url.includes('q=cy')),
      'the search is the server’s',
    );
    if (shots) await checkPage(f, 'staff-inbox-new-1280');
    await panel.getByRole('button', { name: 'Start the conversation' }).click();
    await land(f, shots, 'staff-inbox-new-thread-1280', 'Cy Young');
    await f.page.getByText('No messages yet: write the first one below.').waitFor();
    await send(f, 'Welcome aboard, Cy.');
    const cyChannels = await ws.call<{ data: { id: string; membershipType: string; companyId: string }[] }>(
      'GET',
      `/v1/message-channels?clientId=${cy.id}`,
    );
    assert.deepEqual(
      cyChannels.data.map((ch) => [ch.membershipType, ch.companyId]),
      [['individual', north.id]],
    );
    assert.deepEqual(await messagesIn(ws, cyChannels.data[0]?.id ?? ''), [[fayId, 'Welcome aboard, Cy.']]);

    // And one with all of Northwind, the company found by a search.
    await f.page.getByRole('link', { name: 'All conversations' }).click();
    await land(f, false, '', 'Messages');
    await panel.getByRole('radio', { name: 'A company' }).check();
    await panel.getByLabel('Find a company').fill('north');
    await panel.getByRole('radio', { name: 'Northwind' }).check();
    await panel.getByRole('button', { name: 'Start the conversation' }).click();
    await land(f, false, '', 'Everyone at Northwind');
    await send(f, 'News for everyone at Northwind.');
    const northChannels = await ws.call<{ data: { id: string; companyId: string }[] }>(
      'GET',
      '/v1/message-channels?membershipType=company&orderBy=lastMessageDate',
    );
    assert.deepEqual(
      northChannels.data.map((ch) => ch.companyId),
      [north.id, contoso.id],
    );
    assert.deepEqual(await messagesIn(ws, northChannels.data[0]?.id ?? ''), [[fayId, 'News for everyone at Northwind.']]);

    // And a group of Ada and Cy: each found by a search, the first kept chosen across the second.
    await f.page.getByRole('link', { name: 'All conversations' }).click();
    await land(f, false, '', 'Messages');
    await panel.getByRole('radio', { name: 'A group of clients' }).check();
    await panel.getByLabel('Find clients').fill('ada');
    await panel.getByRole('checkbox', { name: 'Ada Lovelace ada@northwind.test' }).check();
    await panel.getByLabel('Find clients').fill('cy');
    await panel.getByRole('checkbox', { name: 'Cy Young cy@northwind.test' }).check();
    await panel.getByText('2 clients chosen.').waitFor();
    assert.equal(await panel.getByRole('checkbox', { name: 'Ada Lovelace ada@northwind.test' }).isChecked(), true);
    await panel.getByRole('button', { name: 'Start the conversation' }).click();
    await land(f, false, '', 'Ada Lovelace, Cy Young');
    await f.page.getByText('A group of 2 clients of Northwind, and staff').waitFor();
    const groups = await ws.call<{ data: { membershipType: string; companyId: string; memberIds: string[] }[] }>(
      'GET',
      '/v1/message-channels?membershipType=group',
    );
    assert.deepEqual(
      groups.data.map((ch) => [ch.companyId, [...ch.memberIds].sort()]),
      [[north.id, [adaId, cy.id].sort()]],
    );

    // Back in the inbox, every conversation she wrote in is seen; then Ada writes from her own browser.
    listening = streaming(f);
    await f.page.getByRole('link', { name: 'All conversations' }).click();
    await land(f, false, '', 'Messages');
    await inboxIs(f, [
      'Everyone at Northwind',
      'Cy Young',
      'Ada Lovelace',
      'Bob Brown (new)',
      'Ada Lovelace, Cy Young',
      'Everyone at Contoso',
    ]);
    await listening;
    await c.page.goto(`${ws.pages}/messages`);
    await land(c, shots, 'staff-inbox-client-list-320', 'Messages');
    await c.page.getByRole('list', { name: 'Conversations' }).getByRole('link', { name: 'You and Acme New messages' }).click();
    await land(c, false, '', 'You and Acme');
    await send(c, 'Where is my order?');
    await inboxIs(f, [
      'Ada Lovelace (new)',
      'Everyone at Northwind',
      'Cy Young',
      'Bob Brown (new)',
      'Ada Lovelace, Cy Young',
      'Everyone at Contoso',
    ]);
    await announced(f, 'New message in Ada Lovelace.');
    if (shots) await checkPage(f, 'staff-inbox-live-1280');
    assertSameOrigin(portal, f);
    assertSameOrigin(portal, c);
    await f.context.close();
    await c.context.close();

    // Lin, limited to Northwind: Northwind's conversations only, in the same order; no Contoso to start one with.
    const l = await visit(portal, 320);
    try {
      await signedInStaff(portal, ws, l, {
        email: 'lin@acme.test',
        givenName: 'Lin',
        familyName: 'Limited',
        companyAccessList: [north.id],
      });
      await l.page.goto(`${ws.pages}/messages`);
      await land(l, shots, 'staff-inbox-limited-320', 'Messages');
      await inboxIs(l, ['Ada Lovelace (new)', 'Everyone at Northwind (new)', 'Cy Young (new)', 'Ada Lovelace, Cy Young']);
      const linPanel = l.page.getByRole('region', { name: 'New conversation' });
      await linPanel.getByRole('radio', { name: 'A company' }).check();
      await linPanel.getByLabel('Find a company').fill('contoso');
      await linPanel.getByText('No company matches.').waitFor();
      if (shots) await checkPage(l, 'staff-inbox-limited-search-320');
      assert.ok(!((await l.page.locator('main').textContent()) ?? '').includes('Bob'), 'nothing of Contoso’s');
      // A member of staff (not an admin) may start one with a client of her company.
      await linPanel.getByRole('radio', { name: 'A client' }).check();
      await linPanel.getByLabel('Find clients').fill('cy');
      await linPanel.getByRole('radio', { name: 'Cy Young cy@northwind.test' }).check();
      await linPanel.getByRole('button', { name: 'Start the conversation' }).click();
      await land(l, false, '', 'Cy Young');
      await l.page.getByText('No messages yet: write the first one below.').waitFor();
      const cyNow = await ws.call<{ data: unknown[] }>('GET', `/v1/message-channels?clientId=${cy.id}`);
      assert.equal(cyNow.data.length, 2);
      await l.page.goto(`${ws.pages}/messages/${withBob.id}`);
      await land(l, shots, 'staff-inbox-limited-not-found-320', 'Conversation not found');
      assertSameOrigin(portal, l);
    } finally {
      await l.context.close();
    }
  } finally {
    await portal.close();
  }
}

/** A `portal serve` of its own on `env`'s database, sharing `browser`; stopped after the test. */
async function oneOfTwo(t: TestContext, browser: PortalServer['browser'], env: Record<string, string>): Promise<PortalServer> {
  const dir = mkdtempSync(join(tmpdir(), 'portal-inbox-'));
  const port = await freePort();
  const server = await serve({
    PORTAL_ADMIN_TOKEN: ADMIN_TOKEN,
    PORT: String(port),
    PORTAL_URL: `http://127.0.0.1:${port}`,
    FILES_DIR: join(dir, 'files'),
    ...ROOMY_LIMITS,
    ...env,
  });
  const close = async () => {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  };
  t.after(close);
  return { server, browser, http: (method, path, headers, body) => jsonRequest(server.base, method, path, headers, body), close };
}

test('staff and client exchange messages live across two server processes (PostgreSQL and Redis)', {
  timeout: 180_000,
  // In the PostgreSQL job only (the runner runs this file once per backend).
  skip:
    !BACKENDS.includes('postgres') &&
    'no PostgreSQL in this run (PORTAL_TEST_POSTGRES_URL, PORTAL_TEST_BACKEND): the two servers need one to share',
}, async (t) => {
  const redisUrl = process.env.PORTAL_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const prefix = `portal-inbox-test:${randomBytes(6).toString('hex')}:`;
  t.after(async () => {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const env = { DATABASE_URL: await migratedDatabaseUrl(t, 'postgres'), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix };
  // One after the other: the first makes the database's server secrets, which the second then reads.
  const one = await oneOfTwo(t, browser, env);
  const two = await oneOfTwo(t, browser, env);
  const ws = await newWorkspace(one, 'Acme');
  const onTwo = { ...ws, pages: `${two.server.base}/portal/${ws.workspaceId}` };
  // Ada accepts her invite on server one (the link names it); Fay signs in on server two.
  const c = await visit(one, 320);
  const f = await visit(two, 1280);
  try {
    const adaId = await signedInClient(ws, c, { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    await signedInStaff(two, onTwo, f, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
    const bob = await ws.call<{ id: string }>('POST', '/v1/clients', { givenName: 'Bob', familyName: 'Brown', email: 'bob@example.com' });
    await ws.call('POST', '/v1/message-channels', { membershipType: 'individual', clientId: adaId });
    const withBob = await ws.call<{ id: string }>('POST', '/v1/message-channels', { membershipType: 'individual', clientId: bob.id });
    await ws.call('POST', '/v1/messages', { channelId: withBob.id, senderId: bob.id, text: 'Bob first.' });

    // Fay's inbox on server two; Ada's conversation on server one.
    let listening = streaming(f);
    await f.page.goto(`${onTwo.pages}/messages`);
    await land(f, false, '', 'Messages');
    await inboxIs(f, ['Bob Brown (new)', 'Ada Lovelace']);
    await listening;
    await c.page.goto(`${ws.pages}/messages`);
    await land(c, false, '', 'Messages');
    listening = streaming(c);
    await c.page.getByRole('list', { name: 'Conversations' }).getByRole('link', { name: 'You and Acme', exact: true }).click();
    await land(c, false, '', 'You and Acme');
    await listening;

    // Ada writes through server one: Fay's inbox on server two puts it at the top, new, without a reload.
    await send(c, 'Sent through server one');
    await inboxIs(f, ['Ada Lovelace (new)', 'Bob Brown (new)']);
    await announced(f, 'New message in Ada Lovelace.');

    // Fay answers through server two: Ada reads it at once on server one.
    listening = streaming(f);
    await f.page.getByRole('list', { name: 'Conversations' }).getByRole('link', { name: 'Ada Lovelace New messages' }).click();
    await land(f, false, '', 'Ada Lovelace');
    await f.page.locator('ol.messages > li', { hasText: 'Sent through server one' }).waitFor();
    await listening;
    await send(f, 'Answered through server two');
    await c.page.locator('ol.messages > li', { hasText: 'Answered through server two' }).waitFor({ timeout: WAIT_MS });
    await announced(c, 'New message from Acme: Answered through server two');
    assertSameOrigin(one, c);
    assertSameOrigin(two, f);
  } finally {
    await f.context.close();
    await c.context.close();
  }
});
