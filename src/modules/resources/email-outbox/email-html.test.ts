// Rule (issue 44, point 1): every e-mail has an HTML part beside its text: a band in the workspace's colour with its
// logo (decorative: the name is beside it) and its name, then the text itself, escaped (nothing in it is markup), its
// paragraphs and line breaks kept, its web addresses links; the ink on the band and the links read at WCAG AA.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emailHtml, escapeHtml } from './email-html.js';

const bodyOf = (html: string) =>
  html.slice(html.indexOf('<tr><td style="padding:24px'), html.lastIndexOf('</td></tr>\n</table>\n</td></tr>'));

test('the band: the logo (an absolute URL, its box from its size, alt="") and the name, on the workspace’s colour', () => {
  const html = emailHtml('Your invoice', 'Hello', {
    name: 'Acme & Sons <Ltd>',
    color: '#7C3AED',
    logo: { url: 'https://portal.acme.test/portal/ws/api/workspace/logo/abc?x="1"', width: 96, height: 64 },
  });
  assert.ok(html.startsWith('<!doctype html>\n<html lang="en">'), html);
  assert.match(html, /<title>Your invoice<\/title>/);
  assert.match(html, /<td style="background:#7c3aed;color:#ffffff;padding:16px 24px;/);
  assert.ok(
    html.includes(
      '<img src="https://portal.acme.test/portal/ws/api/workspace/logo/abc?x=&quot;1&quot;" alt="" width="48" height="32" ' +
        'style="display:inline-block;vertical-align:middle;border:0;width:48px;height:32px;margin-right:12px">' +
        '<span style="vertical-align:middle">Acme &amp; Sons &lt;Ltd&gt;</span>',
    ),
    html,
  );
  // A wide logo is kept to 160 px wide, its height following.
  const wide = emailHtml('S', 'T', { name: 'W', color: '#000000', logo: { url: 'https://x.test/l', width: 1000, height: 100 } });
  assert.match(wide, /alt="" width="160" height="16" /);
});

test('no logo: the name alone; a light colour gets dark ink; the links are the colour darkened until they read on white', () => {
  const html = emailHtml('S', 'See https://portal.acme.test/x.', { name: 'Acme', color: '#fde047' });
  assert.ok(!html.includes('<img'), html);
  assert.match(html, /background:#fde047;color:#111111;/);
  const link = /<a href="https:\/\/portal\.acme\.test\/x" style="color:(#[0-9a-f]{6});text-decoration:underline">/.exec(html);
  assert.ok(link, html);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = [1, 3, 5].map((at) => channel(Number.parseInt(link[1].slice(at, at + 2), 16)));
  assert.ok(1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05) >= 4.5, `${link[1]} reads on white`);
  // A colour that is not #rrggbb (it never is: the schema refuses it) falls back to a dark slate.
  assert.match(emailHtml('S', 'T', { name: 'A', color: 'red' }), /background:#334155;color:#ffffff;/);
});

test('the text: escaped, paragraphs and line breaks kept, web addresses made links (the sentence’s full stop left out)', () => {
  const text =
    'Hello <b>Ada</b> & "friends"\r\n\r\nInvoice 42 is ready.\nIt is due on Friday.\n\n\n' +
    'Pay it: https://portal.acme.test/notifications/9?invoice=42&x=<y>. Or (https://acme.test/help), or javascript:alert(1)';
  assert.equal(
    bodyOf(emailHtml('S', text, { name: 'Acme', color: '#1d4ed8' })),
    `<tr><td style="padding:24px;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#111111;overflow-wrap:anywhere">\n` +
      '<p style="margin:0 0 16px">Hello &lt;b&gt;Ada&lt;/b&gt; &amp; &quot;friends&quot;</p>\n' +
      '<p style="margin:0 0 16px">Invoice 42 is ready.<br>It is due on Friday.</p>\n' +
      '<p style="margin:0 0 16px">Pay it: <a href="https://portal.acme.test/notifications/9?invoice=42&amp;x=" style="color:#1d4ed8;text-decoration:underline">' +
      'https://portal.acme.test/notifications/9?invoice=42&amp;x=</a>&lt;y&gt;. Or (<a href="https://acme.test/help" ' +
      'style="color:#1d4ed8;text-decoration:underline">https://acme.test/help</a>), or javascript:alert(1)</p>\n',
  );
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
});
