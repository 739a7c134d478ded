// The portal's Messages section in Chromium: a client and a member of staff, each in their own browser, talk in a
// conversation (the list, the thread, sending), and going back through a thread longer than a page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { WAIT_MS } from './helpers/browser.js';
import {
  ADMIN_TOKEN,
  type PortalServer,
  type Visit,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

type Workspace = Awaited<ReturnType<typeof newWorkspace>>;
interface Message {
  id: string;
  text: string;
  senderId: string;
}

/** A long thread is written with the workspace's key faster than its burst of writes allows by default. */
const ROOMY_LIMITS = { RATE_LIMIT_WRITE_CAPACITY: '100' };

let portal: PortalServer;
before(async () => {
  portal = await startPortal(ROOMY_LIMITS);
});
after(() => portal?.close());

/**
 * A member of staff (an internal user, made on the admin surface: /v1 has no way to create one) signs in in `v`'s tab as people do: "I am staff",
 * a link by e-mail, read here from the outbox (the server has no SMTP_URL), opened and pressed. Returns their id.
 */
async function signedInStaff(
  server: PortalServer,
  ws: Workspace,
  v: Visit,
  person: { email: string; givenName: string; familyName: string },
) {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const user = await server.http<{ id: string }>('POST', `/admin/workspaces/${ws.workspaceId}/internal-users`, admin, person);
  assert.equal(user.status, 201, JSON.stringify(user.body));
  await v.page.goto(`${ws.pages}/sign-in`);
  await v.page.getByRole('radio', { name: 'staff' }).check();
  await v.page.getByRole('textbox', { name: 'E-mail' }).fill(person.email);
  await v.page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  const deadline = Date.now() + WAIT_MS;
  let link: string | undefined;
  while (!link) {
    const outbox = await server.http<{ data: { to: string; text?: string }[] }>('GET', `/admin/workspaces/${ws.workspaceId}/outbox`, admin);
    const text = outbox.body.data.find((mail) => mail.to === person.email && mail.text?.includes('/magic-link#'))?.text;
    link = text ? /(https?:\/\/\S+\/magic-link#\S+)/.exec(text)?.[1] : undefined;
    if (!link) {
      assert.ok(Date.now() < deadline, `a sign-in link to ${person.email}`);
      await sleep(100);
    }
  }
  // The link names PORTAL_URL: the tab opens it on the server it is watching.
  const url = new URL(link);
  await v.page.goto(`${ws.pages.replace(/\/portal\/.*$/, '')}${url.pathname}${url.hash}`);
  await v.page.getByRole('button', { name: 'Sign in' }).click();
  await v.page.getByRole('heading', { level: 1, name: 'Home', exact: true }).waitFor({ timeout: WAIT_MS });
  return user.body.id;
}

/** The thread's messages as the tab shows them, oldest first: who, then the text. */
async function shownMessages(v: Visit): Promise<string[]> {
  return v.page
    .locator('ol.messages > li')
    .evaluateAll((items) =>
      items.map((li) => `${li.querySelector('.message-meta strong')?.textContent}: ${li.querySelector('.message-text')?.textContent}`),
    );
}

const conversations = (v: Visit) => v.page.getByRole('list', { name: 'Conversations' });

async function send(v: Visit, words: string) {
  await v.page.getByLabel('Your message').fill(words);
  await v.page.getByRole('button', { name: 'Send' }).click();
  await v.page.locator('ol.messages > li.mine', { hasText: words }).waitFor({ timeout: WAIT_MS });
}

test('a client and staff talk in a conversation; the list shows what is new; a long thread pages back', { timeout: 120_000 }, async () => {
  const ws = await newWorkspace(portal, 'Acme');
  const a = await visit(portal, 320);
  const b = await visit(portal, 1280);
  try {
    const clientId = await signedInClient(ws, a, { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    const staffId = await signedInStaff(portal, ws, b, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' });
    const channel = await ws.call<{ id: string }>('POST', '/v1/message-channels', { membershipType: 'individual', clientId });

    // The client: Messages in the navigation, their one conversation (with the workspace), empty; they write.
    await a.page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Messages' }).click();
    await arrived(a, 'messages-list-320', 'Messages');
    await conversations(a).getByRole('link', { name: 'You and Acme', exact: true }).click();
    await arrived(a, 'messages-thread-empty-320', 'You and Acme');
    await a.page.getByText('No messages yet: write the first one below.').waitFor();
    await send(a, 'Hello, is my order on its way?\nIt was number 42.');
    assert.deepEqual(await shownMessages(a), ['You: Hello, is my order on its way?\nIt was number 42.']);
    await a.page.getByRole('status').filter({ hasText: 'Message sent.' }).waitFor();
    assert.equal(await a.page.getByLabel('Your message').inputValue(), '', 'the field is emptied');

    // Staff: the client's conversation, new to them, by the client's name; opened, it is seen.
    await b.page.goto(`${ws.pages}/messages`);
    await arrived(b, 'messages-list-1280', 'Messages');
    await conversations(b).getByRole('link', { name: 'Ada Lovelace New messages' }).click();
    await arrived(b, 'messages-thread-1280', 'Ada Lovelace');
    assert.deepEqual(await shownMessages(b), ['Ada Lovelace: Hello, is my order on its way?\nIt was number 42.']);
    // Ctrl+Enter sends as well as the button.
    await b.page.getByLabel('Your message').fill('It left this morning.');
    await b.page.getByLabel('Your message').press('Control+Enter');
    await b.page.locator('ol.messages > li.mine', { hasText: 'It left this morning.' }).waitFor();
    await b.page.getByRole('link', { name: 'All conversations' }).click();
    await arrived(b, 'messages-list-seen-1280', 'Messages');
    await conversations(b).getByRole('link', { name: 'Ada Lovelace', exact: true }).waitFor();

    // The client sees staff's answer (as the workspace: a client may not read staff's names) and the list marks it new.
    await a.page.getByRole('link', { name: 'All conversations' }).click();
    await arrived(a, 'messages-list-new-320', 'Messages');
    await conversations(a).getByRole('link', { name: 'You and Acme New messages' }).click();
    await arrived(a, 'messages-thread-320', 'You and Acme');
    assert.deepEqual(await shownMessages(a), ['You: Hello, is my order on its way?\nIt was number 42.', 'Acme: It left this morning.']);
    // What the API refuses is said beside the field (only white space).
    await a.page.getByLabel('Your message').fill('   ');
    await a.page.getByRole('button', { name: 'Send' }).click();
    await a.page.getByRole('alert').waitFor();
    await checkPage(a, 'messages-thread-refused-320');

    // A thread longer than a page: the newest 20 first, "Older messages" brings the 5 before them.
    for (let n = 1; n <= 25; n++) {
      await ws.call<Message>('POST', '/v1/messages', { channelId: channel.id, senderId: n % 2 ? staffId : clientId, text: `Note ${n}` });
    }
    await a.page.reload();
    await arrived(a, 'messages-thread-long-320', 'You and Acme');
    let shown = await shownMessages(a);
    assert.equal(shown.length, 20);
    assert.deepEqual([shown[0], shown[19]], ['You: Note 6', 'Acme: Note 25']);
    const older = a.page.getByRole('button', { name: 'Older messages' });
    await older.focus();
    await a.page.keyboard.press('Enter');
    await a.page.getByText('The start of the conversation.').waitFor();
    shown = await shownMessages(a);
    assert.equal(shown.length, 27);
    assert.deepEqual(shown.slice(0, 3), [
      'You: Hello, is my order on its way?\nIt was number 42.',
      'Acme: It left this morning.',
      'Acme: Note 1',
    ]);
    assert.equal(await older.count(), 0, 'nothing older');
    assert.equal(
      await a.page.evaluate(() => document.activeElement?.querySelector('.message-text')?.textContent),
      'Hello, is my order on its way?\nIt was number 42.',
      'the reader continues at the oldest message loaded',
    );
    await a.page.getByRole('status').filter({ hasText: '7 older messages loaded.' }).waitFor();
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
