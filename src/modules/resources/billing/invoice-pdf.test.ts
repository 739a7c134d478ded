// Rule (issue 33, point 1): an invoice downloads as a PDF (its number, parties, lines, tax, totals, amount paid and
// due, status, the workspace's name) for whoever may read the invoice, and nobody else; each download is invoiceDownloaded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest, limitedUserSession, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS } from '../../../../test/helpers/harness.js';
import { GIF_1x1, JPEG_40x20, WEBP_40x20, logoPng } from '../../../../test/helpers/images.js';
import { PDFTOTEXT_MISSING, pdfAnswerText, pdfImages, pdfText } from '../../../../test/helpers/pdf.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

async function world(t: Parameters<typeof moduleHarness>[0], backend: (typeof BACKENDS)[number]) {
  const h = await moduleHarness(t, backend);
  const w = await acmeAndBeta(h);
  const invoice = okJson(
    await w.call('POST', '/v1/invoices', {
      clientId: w.ada.id,
      lineItems: [
        { amount: 1999, quantity: 1.5, description: 'Consulting' }, // 29.985 → $29.99
        { amount: 123456, quantity: 1, description: 'Annual licence' },
      ],
      taxPercentage: 8.25, // 1264.55 × 8.25% = 104.325375 → $104.33
      daysUntilDue: 14,
      memo: 'Thank you for your business',
    }),
  );
  const pdf = (id: string, key = w.ws.apiKey, query = '') => h.as(key, { method: 'GET', url: `/v1/invoices/${id}/pdf${query}` });
  return { ...w, invoice, pdf };
}

for (const backend of BACKENDS) {
  describe(`invoice PDFs [${backend}]`, { skip: PDFTOTEXT_MISSING }, () => {
    test('the document: number, parties, lines, tax, totals, paid and due, status; then paid, then a void one', async (t) => {
      const { h, ws, invoice, pdf, call, acme } = await world(t, backend);
      assert.equal(invoice.total, 136888);
      const text = pdfAnswerText(await pdf(invoice.id), '0001.pdf');
      for (const expected of [
        'Acme', // the workspace, in its band
        'Invoice 0001',
        'Open · $1,368.88 · due',
        'Billed to Ada L <ada@Acme.test>',
        'Acme Co',
        'Status Open',
        'Consulting 1.5 $19.99 $29.99',
        'Annual licence 1 $1,234.56 $1,234.56',
        'Subtotal $1,264.55',
        'Tax (8.25%) $104.33',
        'Total $1,368.88',
        'Amount paid $0.00',
        'Amount due $1,368.88',
        'Thank you for your business',
      ]) {
        assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
      }

      okJson(await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/invoices/${invoice.id}/pay`));
      const paid = pdfAnswerText(await pdf(invoice.id), '0001.pdf');
      for (const expected of ['Status Paid', 'Amount paid $1,368.88', 'Amount due $0.00', 'Total $1,368.88']) {
        assert.ok(paid.includes(expected), `"${expected}" in: ${paid}`);
      }
      assert.ok(!paid.includes('Amount refunded'), paid);
      // A partial refund is a row of its own (issue 33, point 3); nothing becomes due again.
      const [payment] = okJson(await call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data;
      okJson(await call('POST', '/v1/refunds', { paymentId: payment.id, amount: 36888 }));
      const refunded = pdfAnswerText(await pdf(invoice.id), '0001.pdf');
      for (const expected of ['Amount paid $1,368.88', 'Amount refunded $368.88', 'Amount due $0.00']) {
        assert.ok(refunded.includes(expected), `"${expected}" in: ${refunded}`);
      }

      // Billed to the company (no client), in euros, voided: nothing is due.
      const billed = okJson(
        await call('POST', '/v1/invoices', {
          companyId: acme.id,
          lineItems: [{ amount: 5000, quantity: 2, description: 'Audit' }],
          daysUntilDue: 0,
        }),
      );
      okJson(await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/invoices/${billed.id}/void`));
      const voided = pdfAnswerText(await pdf(billed.id), '0002.pdf');
      for (const expected of ['Invoice 0002', 'Billed to Acme Co', 'Status Void', 'Total $100.00', 'Amount due $0.00', 'was voided']) {
        assert.ok(voided.includes(expected), `"${expected}" in: ${voided}`);
      }
      assert.ok(!voided.includes('Ada L'), voided);
    });

    test('the brand colour: the workspace’s brandColor (#rrggbb, set on the admin surface), absent until set', async (t) => {
      const { h, ws, invoice, pdf } = await world(t, backend);
      const url = `/admin/workspaces/${ws.workspaceId}`;
      assert.equal('brandColor' in okJson(await adminRequest(h, 'PATCH', url, { name: 'Acme' })), false);
      const bad = await adminRequest(h, 'PATCH', url, { brandColor: 'red' });
      assert.equal(bad.statusCode, 400);
      assert.equal(okJson(await adminRequest(h, 'PATCH', url, { brandColor: '#1A2B3C' })).brandColor, '#1a2b3c');
      assert.ok(pdfAnswerText(await pdf(invoice.id), '0001.pdf').includes('Invoice 0001'));
    });

    // Rule (issue 44, point 1): the workspace's logo is drawn in the band beside its name, when it is a PNG or a JPEG
    // (what pdfkit reads); a WebP or GIF logo is left out of the document, which is drawn all the same.
    test('the logo: a PNG (with its transparency) or a JPEG drawn in the band; a WebP or GIF one left out', async (t) => {
      const { h, ws, invoice, pdf } = await world(t, backend);
      const setLogo = async (bytes: Buffer) => {
        const res = await h.app.inject({
          method: 'PUT',
          url: `/admin/workspaces/${ws.workspaceId}/logo`,
          headers: { authorization: `Bearer ${h.adminToken}` },
          payload: bytes,
        });
        assert.equal(res.statusCode, 200, res.body);
      };
      const drawn = async () => {
        const res = await pdf(invoice.id);
        assert.ok(pdfAnswerText(res, '0001.pdf').includes('Acme Invoice 0001'), 'the name in the band, then the title');
        return pdfImages(res.rawPayload).map(({ page, type, width, height, encoding }) => [page, type, width, height, encoding]);
      };
      assert.deepEqual(await drawn(), [], 'no logo, no image');
      await setLogo(logoPng());
      assert.deepEqual(await drawn(), [
        [1, 'image', 96, 64, 'image'],
        [1, 'smask', 96, 64, 'image'],
      ]);
      await setLogo(JPEG_40x20);
      assert.deepEqual(await drawn(), [[1, 'image', 40, 20, 'jpeg']]);
      for (const other of [WEBP_40x20, GIF_1x1]) {
        await setLogo(other);
        assert.deepEqual(await drawn(), []);
      }
    });

    test('a draft is the staff’s: named draft-<id>.pdf; a client session gets a 404 as for GET', async (t) => {
      const { ada, session, pdf, call } = await world(t, backend);
      const draft = okJson(
        await call('POST', '/v1/invoices', {
          clientId: ada.id,
          lineItems: [{ amount: 100, quantity: 1 }],
          daysUntilDue: 1,
          createDraft: true,
        }),
      );
      const text = pdfAnswerText(await pdf(draft.id), `draft-${draft.id}.pdf`);
      assert.ok(text.includes('Draft invoice') && text.includes('Status Draft'), text);
      const adaKey = await session({ clientId: ada.id });
      assert.equal((await pdf(draft.id, adaKey)).statusCode, 404);
    });

    test('a preview: ?disposition=inline is the same document shown, not saved; another value is a 400 naming it', async (t) => {
      const { invoice, pdf } = await world(t, backend);
      const saved = await pdf(invoice.id, undefined, '?disposition=attachment');
      assert.equal(saved.headers['content-disposition'], 'attachment; filename="0001.pdf"');
      const shown = await pdf(invoice.id, undefined, '?disposition=inline');
      assert.equal(shown.statusCode, 200, shown.body);
      assert.deepEqual(
        [
          shown.headers['content-type'],
          shown.headers['content-disposition'],
          shown.headers['cache-control'],
          shown.headers['x-content-type-options'],
        ],
        ['application/pdf', 'inline; filename="0001.pdf"', 'private, no-store', 'nosniff'],
      );
      assert.equal(pdfText(shown.rawPayload), pdfText(saved.rawPayload));
      assertProblems(await pdf(invoice.id, undefined, '?disposition=open'), [
        { path: 'query.disposition', message: 'must be one of: attachment, inline' },
      ]);
    });

    test('who may download: the key, the invoice’s client, staff of its company; others get a 404', async (t) => {
      const { h, ws, app, ada, bob, beta, session, user, invoice, pdf } = await world(t, backend);
      assert.equal((await pdf(invoice.id, await session({ clientId: ada.id }))).statusCode, 200);
      assert.equal((await pdf(invoice.id, await session({ internalUserId: user.id }))).statusCode, 200);

      const bobKey = await session({ clientId: bob.id });
      const other = await pdf(invoice.id, bobKey);
      assert.equal(other.statusCode, 404);
      assert.equal(other.json().code, 'not_found');
      const limited = await limitedUserSession(h, ws.workspaceId, app.apiKey, [beta.id], 'lim@acme.test');
      assert.equal((await pdf(invoice.id, limited.session)).statusCode, 404);

      const elsewhere = await populatedWorkspace(h, 'Elsewhere');
      assert.equal((await pdf(invoice.id, elsewhere.ws.apiKey)).statusCode, 404);
      assert.equal((await pdf('00000000-0000-4000-8000-000000000000')).statusCode, 404);
    });

    test('each download is invoiceDownloaded, about the invoice, by who downloaded it', async (t) => {
      const { ada, session, invoice, pdf, audit } = await world(t, backend);
      assert.deepEqual(await audit('invoiceDownloaded'), []);
      const adaKey = await session({ clientId: ada.id });
      assert.equal((await pdf(invoice.id, adaKey)).statusCode, 200);
      assert.equal((await pdf(invoice.id)).statusCode, 200);
      // Both at the same (test clock's) time: in the order of their actor.
      const entries = (await audit('invoiceDownloaded')).sort((a, b) => String(a.actorId).localeCompare(String(b.actorId)));
      assert.deepEqual(
        entries.map((e) => [e.ref, JSON.parse(e.data).object, e.actorId, e.eventDescription, e.context]),
        [
          [invoice.id, 'invoice', ada.id, 'Invoice 0001 downloaded as a PDF', { invoiceId: invoice.id, number: '0001' }],
          [invoice.id, 'invoice', undefined, 'Invoice 0001 downloaded as a PDF', { invoiceId: invoice.id, number: '0001' }],
        ],
      );
    });
  });
}
