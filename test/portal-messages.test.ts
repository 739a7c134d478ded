// The portal's Messages section in Chromium: a client and a member of staff, each in their own browser, talk in a
// conversation (the list, the thread, sending), each seeing the other's messages appear without a reload (the
// message stream), then the same across two server processes sharing a PostgreSQL database and Redis; and going back
// through a thread longer than a page.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { WAIT_MS } from './helpers/browser.js';
import { migratedDatabaseUrl } from './helpers/harness.js';
import {
  ADMIN_TOKEN,
  type PortalServer,
  type Visit,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  signedInStaff,
  startPortal,
  visit,
} from './helpers/portal-pages.js';
import { freePort, jsonRequest, serve, stop } from './helpers/server.js';

interface Message {
  id: string;
  text: string;
  senderId: string;
}

/** A long thread is written with the workspace's key faster than its burst of writes allows by default. */
const ROOMY_LIMITS = { RATE_LIMIT_WRITE_CAPACITY: '100' };

let portal: PortalServer;
before(async () => {
  portal = await startPortal({ env: ROOMY_LIMITS });
});
after(() => portal?.close());

/** The thread's messages as the tab shows them, oldest first: who, then the text. */
async function shownMessages(v: Visit): Promise<string[]> {
  return v.page
    .locator('ol.messages > li')
    .evaluateAll((items) =>
      items.map((li) => `${li.querySelector('.message-meta strong')?.textContent}: ${li.querySelector('.message-text')?.textContent}`),
    );
}

const conversations = (v: Visit) => v.page.getByRole('list', { name: 'Conversations' });

/** Resolves once the tab's stream of messages is open (the server answers it once it follows the messages). */
const streaming = (v: Visit) => v.page.waitForResponse((response) => response.url().includes('/v1/messages/stream'), { timeout: WAIT_MS });

/** Opens the conversation in `v`'s list whose link is named `name`, and waits until its new messages will arrive. */
async function openConversation(v: Visit, name: string, screenshot: string, title: string) {
  const open = streaming(v);
  await conversations(v).getByRole('link', { name, exact: true }).click();
  await arrived(v, screenshot, title);
  assert.equal((await open).status(), 200);
}

async function send(v: Visit, words: string) {
  await v.page.getByLabel('Your message').fill(words);
  await v.page.getByRole('button', { name: 'Send' }).click();
  await v.page.locator('ol.messages > li.mine', { hasText: words }).waitFor({ timeout: WAIT_MS });
}

/** The polite announcement `words` was made in `v`'s tab (its live region, not the thread). */
const announced = (v: Visit, words: string) => v.page.getByRole('status').filter({ hasText: words }).waitFor({ timeout: WAIT_MS });

const HELLO = 'Hello, is my order on its way?\nIt was number 42.';

test('a client and staff talk live in a conversation; the list marks what is new; a long thread pages back', {
  timeout: 120_000,
}, async () => {
  const ws = await newWorkspace(portal, 'Acme');
  const a = await visit(portal, 320);
  const b = await visit(portal, 1280);
  try {
    const clientId = await signedInClient(ws, a, { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    const staffId = await signedInStaff(portal, ws, b, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' });
    const channel = await ws.call<{ id: string }>('POST', '/v1/message-channels', { membershipType: 'individual', clientId });

    // Staff watch their list: the client's conversation, by the client's name, nothing in it yet.
    const bListening = streaming(b);
    await b.page.goto(`${ws.pages}/messages`);
    await arrived(b, 'messages-list-1280', 'Messages');
    await conversations(b).getByRole('link', { name: 'Ada Lovelace', exact: true }).waitFor();
    await bListening;

    // The client: Messages in the navigation, their one conversation (with the workspace), empty; they write.
    await a.page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Messages' }).click();
    await arrived(a, 'messages-list-320', 'Messages');
    await openConversation(a, 'You and Acme', 'messages-thread-empty-320', 'You and Acme');
    await a.page.getByText('No messages yet: write the first one below.').waitFor();
    await send(a, HELLO);
    await announced(a, 'Message sent.');
    assert.equal(await a.page.getByLabel('Your message').inputValue(), '', 'the field is emptied');

    // Without a reload, staff's list marks the conversation new and says so; they open it.
    await conversations(b).getByRole('link', { name: 'Ada Lovelace New messages' }).waitFor({ timeout: WAIT_MS });
    await announced(b, 'New message in Ada Lovelace.');
    await openConversation(b, 'Ada Lovelace New messages', 'messages-thread-1280', 'Ada Lovelace');
    assert.deepEqual(await shownMessages(b), [`Ada Lovelace: ${HELLO}`]);

    // Each sees the other's messages appear, and hears them; their own, which the stream brings back too, once.
    await send(a, 'Are you there?');
    await b.page.locator('ol.messages > li', { hasText: 'Are you there?' }).waitFor({ timeout: WAIT_MS });
    await announced(b, 'New message from Ada Lovelace: Are you there?');
    await b.page.getByLabel('Your message').fill('It left this morning.');
    await b.page.getByLabel('Your message').press('Control+Enter'); // Ctrl+Enter sends as well as the button
    await a.page.locator('ol.messages > li', { hasText: 'It left this morning.' }).waitFor({ timeout: WAIT_MS });
    await announced(a, 'New message from Acme: It left this morning.');
    const conversation = [`You: ${HELLO}`, 'You: Are you there?', 'Acme: It left this morning.'];
    assert.deepEqual(await shownMessages(a), conversation, 'the client reads staff as the workspace (a client may read no staff)');
    await send(a, 'Thank you!');
    await b.page.locator('ol.messages > li', { hasText: 'Thank you!' }).waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await shownMessages(b), [
      `Ada Lovelace: ${HELLO}`,
      'Ada Lovelace: Are you there?',
      'You: It left this morning.',
      'Ada Lovelace: Thank you!',
    ]);
    assert.deepEqual(await shownMessages(a), [...conversation, 'You: Thank you!']);
    await checkPage(a, 'messages-thread-320');
    await checkPage(b, 'messages-thread-live-1280');

    // Seen as they came: neither list marks the conversation new any more.
    await b.page.getByRole('link', { name: 'All conversations' }).click();
    await arrived(b, 'messages-list-seen-1280', 'Messages');
    await conversations(b).getByRole('link', { name: 'Ada Lovelace', exact: true }).waitFor();
    await a.page.getByRole('link', { name: 'All conversations' }).click();
    await arrived(a, 'messages-list-seen-320', 'Messages');
    await openConversation(a, 'You and Acme', 'messages-thread-again-320', 'You and Acme');

    // What the API refuses is said beside the field (only white space).
    await a.page.getByLabel('Your message').fill('   ');
    await a.page.getByRole('button', { name: 'Send' }).click();
    await a.page.getByRole('alert').waitFor();
    await checkPage(a, 'messages-thread-refused-320');

    // A thread longer than a page: the newest 20 first, "Older messages" brings the 8 before them.
    for (let n = 1; n <= 24; n++) {
      await ws.call<Message>('POST', '/v1/messages', { channelId: channel.id, senderId: n % 2 ? staffId : clientId, text: `Note ${n}` });
    }
    await a.page.locator('ol.messages > li', { hasText: 'Note 24' }).waitFor({ timeout: WAIT_MS });
    await a.page.reload();
    await arrived(a, 'messages-thread-long-320', 'You and Acme');
    let shown = await shownMessages(a);
    assert.equal(shown.length, 20);
    assert.deepEqual([shown[0], shown[19]], ['Acme: Note 5', 'You: Note 24']);
    const older = a.page.getByRole('button', { name: 'Older messages' });
    await older.focus();
    await a.page.keyboard.press('Enter');
    await a.page.getByText('The start of the conversation.').waitFor();
    shown = await shownMessages(a);
    assert.equal(shown.length, 28);
    assert.deepEqual(shown.slice(0, 5), [...conversation, 'You: Thank you!', 'Acme: Note 1']);
    assert.equal(await older.count(), 0, 'nothing older');
    assert.equal(
      await a.page.evaluate(() => document.activeElement?.querySelector('.message-text')?.textContent),
      HELLO,
      'the reader continues at the oldest message loaded',
    );
    await announced(a, '8 older messages loaded.');
    await checkPage(a, 'messages-thread-older-320');

    // A conversation that is not theirs (or not at all) is said to be missing.
    await a.page.goto(`${ws.pages}/messages/00000000-0000-4000-8000-000000000000`);
    await arrived(a, 'messages-not-found-320', 'Conversation not found');
    for (const v of [a, b]) assertSameOrigin(portal, v);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

/** A `portal serve` of its own (a PortalServer sharing this file's browser), on `env`'s database; stopped after the test. */
async function anotherServer(t: TestContext, env: Record<string, string>): Promise<PortalServer> {
  const dir = mkdtempSync(join(tmpdir(), 'portal-messages-'));
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
  return {
    server,
    browser: portal.browser,
    http: (method, path, headers, body) => jsonRequest(server.base, method, path, headers, body),
    close,
  };
}

test('across two server processes on one PostgreSQL database and Redis: what one says appears on the other', {
  timeout: 120_000,
  skip: !process.env.PORTAL_TEST_POSTGRES_URL && 'PORTAL_TEST_POSTGRES_URL is not set: the two servers need a PostgreSQL database to share',
}, async (t) => {
  const redisUrl = process.env.PORTAL_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const prefix = `portal-messages-test:${randomBytes(6).toString('hex')}:`;
  t.after(async () => {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  const env = { DATABASE_URL: await migratedDatabaseUrl(t, 'postgres'), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix };
  // One after the other: the first makes the database's server secrets, which the second then reads.
  const one = await anotherServer(t, env);
  const two = await anotherServer(t, env);
  const ws = await newWorkspace(one, 'Acme');
  const onTwo = `${two.server.base}/portal/${ws.workspaceId}`;
  const a = await visit(one, 320);
  const b = await visit(two, 1280);
  try {
    const clientId = await signedInClient(ws, a, { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    await signedInStaff(two, { ...ws, pages: onTwo }, b, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' });
    await ws.call('POST', '/v1/message-channels', { membershipType: 'individual', clientId });

    await a.page.goto(`${ws.pages}/messages`);
    await arrived(a, 'messages-two-servers-list-320', 'Messages');
    await openConversation(a, 'You and Acme', 'messages-two-servers-thread-320', 'You and Acme');
    await b.page.goto(`${onTwo}/messages`);
    await arrived(b, 'messages-two-servers-list-1280', 'Messages');
    await openConversation(b, 'Ada Lovelace', 'messages-two-servers-thread-1280', 'Ada Lovelace');

    await send(a, 'Sent through server one');
    await b.page.locator('ol.messages > li', { hasText: 'Sent through server one' }).waitFor({ timeout: WAIT_MS });
    await send(b, 'Answered through server two');
    await a.page.locator('ol.messages > li', { hasText: 'Answered through server two' }).waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await shownMessages(a), ['You: Sent through server one', 'Acme: Answered through server two']);
    assert.deepEqual(await shownMessages(b), ['Ada Lovelace: Sent through server one', 'You: Answered through server two']);
    assertSameOrigin(one, a);
    assertSameOrigin(two, b);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});
