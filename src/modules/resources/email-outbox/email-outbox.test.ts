import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { oneJson, portal, portalWith } from '../../../../test/helpers/cli.js';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { logoPng } from '../../../../test/helpers/images.js';
import { partOf, smtpServer } from '../../../../test/helpers/smtp.js';
import { adminRequest, createClient, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, adminHarness, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';

/** The workspace's outbox through the admin surface. */
async function outboxOf(h: Harness, workspaceId: string) {
  const res = await adminRequest(h, 'GET', `/admin/workspaces/${workspaceId}/outbox`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

const FAST = { pollMs: 20, retryDelaysMs: [60_000] };

for (const backend of BACKENDS) {
  describe(`e-mail delivery of notifications, through a real SMTP server [${backend}]`, () => {
    test('an e-mail target is sent after the commit: what the server receives; a company’s clients get one each', async (t) => {
      const smtp = await smtpServer(t);
      const h = await adminHarness(t, backend, {
        env: { SMTP_URL: smtp.url, SMTP_FROM: 'Acme Portal <portal@acme.test>', PORTAL_URL: 'https://portal.acme.test' },
        emailDelivery: FAST,
      });
      const { ws, user, client, company } = await populatedWorkspace(h);
      const sent = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/notifications',
        payload: {
          senderId: user.id,
          recipientClientId: client.id,
          deliveryTargets: {
            email: {
              subject: 'Your invoice',
              header: 'Hello Ada',
              body: 'Invoice 42 is ready.',
              title: 'Pay it',
              ctaParams: { invoice: '42' },
            },
          },
        },
      });
      assert.equal(sent.statusCode, 200, sent.body);
      const id = sent.json().id;
      await heldWithin(5000, 'the SMTP server received the e-mail', async () => smtp.received.length === 1);
      const [mail] = smtp.received;
      assert.equal(mail.from, 'portal@acme.test');
      assert.deepEqual(mail.to, [client.email.toLowerCase()], 'the address (its domain lower-cased on the way)');
      assert.match(mail.raw, /^Subject: Your invoice\r$/m);
      // Every e-mail names the business it comes from (issue 44): SMTP_FROM's address under the workspace's name.
      assert.match(mail.raw, /^From: Acme <portal@acme\.test>\r$/m);
      assert.match(mail.raw, /^To: ada@acme\.test\r$/im);
      // The text as queued, beside its HTML (issue 44: the workspace's band above the same text; the next test).
      assert.match(mail.raw, /^Content-Type: multipart\/alternative;/m);
      const body = partOf(mail, 'text/plain')?.replace(/\r\n/g, '\n');
      assert.equal(body, `Hello Ada\n\nInvoice 42 is ready.\n\nPay it: https://portal.acme.test/notifications/${id}?invoice=42`);
      await heldWithin(5000, 'the outbox records it sent', async () => (await outboxOf(h, ws.workspaceId))[0].status === 'sent');
      const [row] = await outboxOf(h, ws.workspaceId);
      assert.deepEqual(
        { ...row, id: undefined },
        {
          id: undefined,
          notificationId: id,
          to: client.email,
          subject: 'Your invoice',
          status: 'sent',
          attempts: 1,
          nextAttemptAt: null,
          lastError: null,
          createdAt: new Date(NOON).toISOString(),
          sentAt: new Date(NOON).toISOString(),
        },
      );

      const bob = await createClient(h, ws.apiKey, { email: 'bob@acme.test', givenName: 'Bob', familyName: 'B', companyId: company.id });
      const toCompany = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/notifications',
        payload: { senderId: user.id, recipientCompanyId: company.id, deliveryTargets: { inProduct: { title: 'News' }, email: {} } },
      });
      assert.equal(toCompany.statusCode, 200, toCompany.body);
      await heldWithin(5000, 'each client of the company got it', async () => smtp.received.length === 3);
      assert.deepEqual(
        smtp.received
          .slice(1)
          .flatMap((m) => m.to)
          .sort(),
        [client.email.toLowerCase(), bob.email].sort(),
      );
      assert.ok(
        smtp.received.slice(1).every((m) => /^Subject: News\r$/m.test(m.raw)),
        'the subject defaults to the in-product title',
      );
    });

    // Rule (issue 44, point 1): every e-mail has an HTML part too: a band in the workspace's colour with its logo (an
    // absolute URL under PORTAL_URL, the path its portal serves it at) and its name, then the same text, escaped, its
    // link clickable. Rendered at delivery, from the workspace as it is then.
    test('the HTML part: the workspace’s band (colour, logo, name) above the same text, its link clickable', async (t) => {
      const smtp = await smtpServer(t);
      const h = await adminHarness(t, backend, {
        env: { SMTP_URL: smtp.url, SMTP_FROM: 'Acme Portal <portal@acme.test>', PORTAL_URL: 'https://portal.acme.test' },
        emailDelivery: FAST,
      });
      const { ws, user, client } = await populatedWorkspace(h);
      const branded = await adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}`, { name: 'Acme & <Co>', brandColor: '#7C3AED' });
      assert.equal(branded.statusCode, 200, branded.body);
      const logo = logoPng();
      const set = await h.app.inject({
        method: 'PUT',
        url: `/admin/workspaces/${ws.workspaceId}/logo`,
        headers: { authorization: `Bearer ${h.adminToken}`, 'content-type': 'image/png' },
        payload: logo,
      });
      assert.equal(set.statusCode, 200, set.body);
      const logoUrl: string = set.json().logoUrl;
      assert.equal(
        logoUrl,
        `https://portal.acme.test/portal/${ws.workspaceId}/api/workspace/logo/${createHash('sha256').update(logo).digest('hex')}`,
      );

      const send = async (body: string) => {
        const res = await h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/notifications',
          payload: { senderId: user.id, recipientClientId: client.id, deliveryTargets: { email: { subject: 'News <1>', body } } },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().id as string;
      };
      const id = await send('Read <this> & that.');
      await heldWithin(5000, 'the SMTP server received the e-mail', async () => smtp.received.length === 1);
      const text = partOf(smtp.received[0], 'text/plain')?.replace(/\r\n/g, '\n');
      const link = `https://portal.acme.test/notifications/${id}`;
      assert.equal(text, `Read <this> & that.\n\nOpen: ${link}`);
      const html = partOf(smtp.received[0], 'text/html') ?? '';
      assert.match(html, /<title>News &lt;1&gt;<\/title>/);
      assert.ok(
        html.includes(
          '<td style="background:#7c3aed;color:#ffffff;padding:16px 24px;' +
            "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:18px;line-height:1.3;font-weight:bold\">" +
            `<img src="${logoUrl}" alt="" width="48" height="32" ` +
            'style="display:inline-block;vertical-align:middle;border:0;width:48px;height:32px;margin-right:12px">' +
            '<span style="vertical-align:middle">Acme &amp; &lt;Co&gt;</span></td>',
        ),
        html,
      );
      assert.ok(html.includes('<p style="margin:0 0 16px">Read &lt;this&gt; &amp; that.</p>'), html);
      assert.ok(
        html.includes(`<p style="margin:0 0 16px">Open: <a href="${link}" style="color:#7c3aed;text-decoration:underline">${link}</a></p>`),
        html,
      );
      // What the e-mail's logo names is what the portal serves.
      const image = await h.app.inject({ method: 'GET', url: new URL(logoUrl).pathname });
      assert.equal(image.statusCode, 200);
      assert.ok(image.rawPayload.equals(logo));

      // Without a logo: the name alone on the band; the text part is still the text as queued.
      const removed = await h.app.inject({
        method: 'DELETE',
        url: `/admin/workspaces/${ws.workspaceId}/logo`,
        headers: { authorization: `Bearer ${h.adminToken}` },
      });
      assert.equal(removed.statusCode, 200);
      await send('Plain.');
      await heldWithin(5000, 'the second e-mail arrived', async () => smtp.received.length === 2);
      const plain = partOf(smtp.received[1], 'text/html') ?? '';
      assert.ok(!plain.includes('<img'), plain);
      assert.ok(plain.includes('font-weight:bold"><span style="vertical-align:middle">Acme &amp; &lt;Co&gt;</span></td>'), plain);
      assert.match(partOf(smtp.received[1], 'text/plain') ?? '', /^Plain\.\r?\n\r?\nOpen: https:\/\/portal\.acme\.test\/notifications\//);
    });

    test('a failing SMTP server leaves the e-mail queued with its error; it is sent when its retry comes due; the last failure keeps it as failed', async (t) => {
      const smtp = await smtpServer(t);
      smtp.state.refuse = '451 mailbox busy, try later';
      const h = await adminHarness(t, backend, {
        env: { SMTP_URL: smtp.url },
        emailDelivery: { pollMs: 20, retryDelaysMs: [60_000, 60_000] },
      });
      const { ws, user, client } = await populatedWorkspace(h);
      const send = async (subject: string) => {
        const res = await h.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/notifications',
          payload: { senderId: user.id, recipientClientId: client.id, deliveryTargets: { email: { subject } } },
        });
        assert.equal(res.statusCode, 200, res.body);
      };
      await send('Retried');
      await heldWithin(5000, 'the attempt failed and was recorded', async () => (await outboxOf(h, ws.workspaceId))[0].attempts === 1);
      const [failed] = await outboxOf(h, ws.workspaceId);
      assert.equal(failed.status, 'queued');
      assert.equal(failed.nextAttemptAt, new Date(NOON + 60_000).toISOString(), 'retried after the first delay');
      assert.match(failed.lastError, /451/);
      assert.equal(smtp.received.length, 0);

      smtp.state.refuse = null;
      await new Promise((resolve) => setTimeout(resolve, 200)); // ten polls: not due yet, so not tried
      assert.equal((await outboxOf(h, ws.workspaceId))[0].attempts, 1);
      h.clock.advance(60_000);
      await heldWithin(5000, 'sent once its retry came due', async () => smtp.received.length === 1);
      await heldWithin(5000, 'recorded as sent', async () => (await outboxOf(h, ws.workspaceId))[0].status === 'sent');
      assert.equal((await outboxOf(h, ws.workspaceId))[0].attempts, 2);

      // Every attempt failing: after the last retry the e-mail is kept as failed, never deleted.
      smtp.state.refuse = '451 still busy';
      h.clock.advance(1000);
      await send('Given up');
      const givenUp = async () => (await outboxOf(h, ws.workspaceId)).find((e: { subject: string }) => e.subject === 'Given up');
      await heldWithin(5000, 'first attempt', async () => (await givenUp()).attempts === 1);
      h.clock.advance(60_000);
      await heldWithin(5000, 'second attempt', async () => (await givenUp()).attempts === 2);
      h.clock.advance(60_000);
      await heldWithin(5000, 'third and last attempt', async () => (await givenUp()).status === 'failed');
      const last = await givenUp();
      assert.deepEqual([last.attempts, last.nextAttemptAt, last.lastError.includes('451')], [3, null, true]);
    });

    test('two server processes on one database send each e-mail once', async (t) => {
      const smtp = await smtpServer(t);
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const options = { databaseUrl, env: { SMTP_URL: smtp.url }, emailDelivery: FAST };
      const first = await adminHarness(t, backend, options);
      const second = await harness(t, backend, options);
      const { ws, user, client } = await populatedWorkspace(first);
      const count = 30;
      for (let i = 0; i < count; i++) {
        const res = await first.as(ws.apiKey, {
          method: 'POST',
          url: '/v1/notifications',
          payload: { senderId: user.id, recipientClientId: client.id, deliveryTargets: { email: { subject: `Mail ${i}` } } },
        });
        assert.equal(res.statusCode, 200, res.body);
        // The second process only polls: it finds the e-mails due as the first process does.
        assert.ok(second.app.ctx.emailDelivery, 'the second process delivers too');
      }
      await heldWithin(10_000, `${count} e-mails received`, async () => smtp.received.length >= count);
      await new Promise((resolve) => setTimeout(resolve, 200)); // a duplicate would arrive by now
      const subjects = smtp.received.map((m) => /^Subject: (.*)\r$/m.exec(m.raw)?.[1]).sort();
      assert.deepEqual(subjects, Array.from({ length: count }, (_, i) => `Mail ${i}`).sort(), 'each once');
    });
  });
}

describe('without SMTP_URL, e-mails stay queued', () => {
  test('`portal outbox list --workspace W --json` shows them', async (t) => {
    const databaseUrl = await freshDatabaseUrl(t, 'sqlite', { sqliteFile: true });
    const h = await harness(t, 'sqlite', { databaseUrl });
    assert.equal(h.app.ctx.emailDelivery, null, 'nothing sends');
    const { ws, user, client } = await populatedWorkspace(h);
    const res = await h.as(ws.apiKey, {
      method: 'POST',
      url: '/v1/notifications',
      payload: { senderId: user.id, recipientClientId: client.id, deliveryTargets: { email: { subject: 'Queued' } } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const listed = oneJson((await portal(databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId, '--json')).stdout);
    assert.equal(listed.data.length, 1);
    assert.deepEqual(
      [listed.data[0].to, listed.data[0].subject, listed.data[0].status, listed.data[0].attempts, listed.data[0].notificationId],
      [client.email, 'Queued', 'queued', 0, res.json().id],
    );
    const sent = oneJson((await portal(databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId, '--status', 'sent', '--json')).stdout);
    assert.deepEqual(sent, { data: [] });
    const human = await portal(databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId);
    assert.match(human.stdout, /queued {2}0 attempt\(s\) {2}ada@acme\.test {2}Queued/i);
    const bad = await portal(databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId, '--status', 'lost', '--json');
    assert.notEqual(bad.code, 0);
  });
});

for (const backend of BACKENDS) {
  // Rule (issue 42, point 13): without SMTP_URL nothing is sent, so the operator's outbox (admin API and `portal outbox
  // list`) shows each e-mail's text, links included: local development's inbox. With SMTP_URL, never (the links are on
  // their way to someone else and open their accounts).
  describe(`the outbox shows e-mails' text only while no SMTP_URL is set [${backend}]`, () => {
    test('without SMTP_URL: an invite e-mail and its link, in the admin list and the command', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const h = await adminHarness(t, backend, { databaseUrl, env: { PORTAL_URL: 'https://portal.acme.test' } });
      const { ws } = await populatedWorkspace(h);
      const invited = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/clients?sendInvite=true',
        payload: { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' },
      });
      assert.equal(invited.statusCode, 200, invited.body);
      const { inviteUrl } = invited.json();
      assert.match(inviteUrl, new RegExp(`^https://portal\\.acme\\.test/portal/${ws.workspaceId}/invite#.+`));
      const [email] = await outboxOf(h, ws.workspaceId);
      assert.deepEqual([email.to, email.subject, email.status], ['grace@acme.test', 'You are invited to your client portal', 'queued']);
      assert.ok(email.text.startsWith('Hello Grace,\n\nYou are invited to your client portal.'), email.text);
      assert.ok(email.text.includes(`\n\n${inviteUrl}\n`), 'the link, whole');

      const listed = oneJson((await portal(databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId, '--json')).stdout);
      assert.equal(listed.data[0].text, email.text);
      const human = (await portal(databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId)).stdout;
      assert.ok(human.includes(`\n    ${inviteUrl}\n`), human);
    });

    test('with SMTP_URL: no text, in the admin list nor the command', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      // An SMTP server that never answers: the e-mail stays queued, its body kept for the retries.
      const smtp = await smtpServer(t);
      smtp.state.refuse = '451 mailbox busy, try later';
      const h = await adminHarness(t, backend, {
        databaseUrl,
        env: { SMTP_URL: smtp.url },
        emailDelivery: { pollMs: 20, retryDelaysMs: [60_000] },
      });
      const { ws } = await populatedWorkspace(h);
      const invited = await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/clients?sendInvite=true',
        payload: { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper' },
      });
      assert.equal(invited.statusCode, 200, invited.body);
      await heldWithin(5000, 'one attempt failed', async () => (await outboxOf(h, ws.workspaceId))[0].attempts === 1);
      const [email] = await outboxOf(h, ws.workspaceId);
      assert.deepEqual([email.status, 'text' in email], ['queued', false]);
      const listed = await portalWith({ SMTP_URL: smtp.url }, databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId, '--json');
      assert.deepEqual(Object.keys(oneJson(listed.stdout).data[0]).includes('text'), false);
      const human = (await portalWith({ SMTP_URL: smtp.url }, databaseUrl, 'outbox', 'list', '--workspace', ws.workspaceId)).stdout;
      assert.ok(!human.includes(invited.json().inviteUrl.split('#')[1]), 'never the invite token');
    });
  });
}
