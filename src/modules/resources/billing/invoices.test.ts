import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addClientCompany,
  adminRequest,
  createCompany,
  createTestInternalUser,
  populatedWorkspace,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { listening } from '../../../../test/helpers/event-stream.js';
import { BACKENDS, NOON } from '../../../../test/helpers/harness.js';
import { jsonRequest } from '../../../../test/helpers/server.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { auditReader, moduleHarness } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();
const DAY = 86_400_000;
const card = [{ type: 'creditCard', feePaidByClient: true }];

async function world(t: Parameters<typeof moduleHarness>[0], backend: (typeof BACKENDS)[number]) {
  const h = await moduleHarness(t, backend);
  const w = await populatedWorkspace(h);
  const create = (payload: object, key = w.ws.apiKey) => h.as(key, { method: 'POST', url: '/v1/invoices', payload });
  return { h, ...w, create, audit: auditReader(h, w.ws.apiKey) };
}

for (const backend of BACKENDS) {
  describe(`invoices (contract §3) [${backend}]`, () => {
    test('create: lines × decimal quantities and tax rounded half up to a cent, due date, number, the SDK’s shape', async (t) => {
      const { client, company, create } = await world(t, backend);
      const res = await create({
        clientId: client.id,
        lineItems: [
          { amount: 1999, quantity: 1.5, description: 'Consulting' }, // 2998.5 → 2999
          { amount: 333, quantity: 0.5 }, // 166.5 → 167
          { amount: 10, quantity: 0.1 }, // 1
        ],
        taxPercentage: 8.25, // 3167 × 8.25% = 261.2775 → 261
        daysUntilDue: 14,
        memo: 'Thanks',
        paymentMethodPreferences: card,
      });
      assert.equal(res.statusCode, 200, res.body);
      const invoice = res.json();
      assert.deepEqual(
        { ...invoice, id: undefined },
        {
          id: undefined,
          object: 'invoice',
          number: '0001',
          status: 'open',
          clientId: client.id,
          clientUserId: client.id,
          recipientId: client.id,
          companyId: company.id,
          memo: 'Thanks',
          currency: 'usd',
          taxPercentage: 8.25,
          lineItems: [
            { amount: 1999, description: 'Consulting', quantity: 1.5, total: 2999 },
            { amount: 333, description: '', quantity: 0.5, total: 167 },
            { amount: 10, description: '', quantity: 0.1, total: 1 },
          ],
          daysUntilDue: 14,
          collectionMethod: 'sendInvoice',
          paymentMethodPreferences: card,
          allowPaymentViaCC: true,
          allowPaymentViaACH: false,
          absorbTransactionFees: false,
          subtotal: 3167,
          taxAmount: 261,
          total: 3428,
          dueDate: new Date(NOON + 14 * DAY).toISOString(),
          sentDate: AT,
          billingReason: 'manual',
          createdAt: AT,
          updatedAt: AT,
        },
      );
      const half = await create({
        companyId: company.id,
        lineItems: [{ amount: 5, quantity: 1 }],
        taxPercentage: 10,
        daysUntilDue: 0,
        createDraft: true,
      });
      assert.deepEqual(
        [
          'number' in half.json(),
          half.json().status,
          'sentDate' in half.json(),
          half.json().taxAmount,
          half.json().total,
          'clientId' in half.json(),
        ],
        [false, 'draft', false, 1, 6, false],
        'tax of 0.5 cent rounds up; a draft has no number and is not sent; a company is billed alone',
      );
      assert.equal(half.json().dueDate, AT, '0 days: due now');
      assert.equal(half.json().absorbTransactionFees, true, 'no preference: fees absorbed');
      const get = await create({ clientId: client.id, lineItems: [{ amount: 100, quantity: 3 }], daysUntilDue: 30, taxPercentage: 100 });
      assert.deepEqual([get.json().subtotal, get.json().taxAmount, get.json().total], [300, 300, 600]);
    });

    test('lines from a price (its amount, product and currency) and from a template (its lines, memo, tax, currency)', async (t) => {
      const { h, ws, company, create } = await world(t, backend);
      const admin = async (path: string, payload: object) => {
        const res = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}${path}`, payload);
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const product = await admin('/products', { name: 'Lamp' });
      const price = await admin('/prices', { productId: product.id, amount: 1999, currency: 'EUR' });
      const fromPrice = await create({
        companyId: company.id,
        lineItems: [{ priceId: price.id, quantity: 2, description: 'Lamps' }],
        daysUntilDue: 5,
      });
      assert.equal(fromPrice.statusCode, 200, fromPrice.body);
      assert.deepEqual(
        [fromPrice.json().lineItems, fromPrice.json().currency, fromPrice.json().total],
        [[{ amount: 1999, description: 'Lamps', quantity: 2, total: 3998, priceId: price.id, productId: product.id }], 'eur', 3998],
      );
      const template = await admin('/invoice-templates', {
        name: 'Monthly',
        lineItems: [{ amount: 1000, quantity: 1.5, description: 'Retainer' }],
        memo: 'From the template',
        taxPercentage: 7.125,
        currency: 'gbp',
      });
      const fromTemplate = await create({ companyId: company.id, templateId: template.id, daysUntilDue: 5 });
      assert.equal(fromTemplate.statusCode, 200, fromTemplate.body);
      const invoice = fromTemplate.json();
      // 1500 × 7.125% = 106.875 → 107
      assert.deepEqual(
        [invoice.lineItems, invoice.memo, invoice.taxPercentage, invoice.currency, invoice.subtotal, invoice.taxAmount, invoice.total],
        [[{ amount: 1000, description: 'Retainer', quantity: 1.5, total: 1500 }], 'From the template', 7.125, 'gbp', 1500, 107, 1607],
      );
    });

    test('every input rule: who is billed, lines, limits (400s naming each field)', async (t) => {
      const { h, ws, client, company, create } = await world(t, backend);
      const line = [{ amount: 100, quantity: 1 }];
      assertProblems(await create({ lineItems: line, daysUntilDue: 1 }), ['body.clientId']);
      assertProblems(await create({ clientId: 'nobody', lineItems: line, daysUntilDue: 1 }), ['body.clientId']);
      assertProblems(await create({ clientUserId: 'nobody', lineItems: line, daysUntilDue: 1 }), ['body.clientUserId']);
      assertProblems(await create({ companyId: 'nothing', lineItems: line, daysUntilDue: 1 }), ['body.companyId']);
      const other = await createCompany(h, ws.apiKey, { name: 'Other' });
      assertProblems(await create({ clientId: client.id, companyId: other.id, lineItems: line, daysUntilDue: 1 }), ['body.companyId']);
      await addClientCompany(h, ws.workspaceId, client, other.id);
      assertProblems(await create({ clientId: client.id, lineItems: line, daysUntilDue: 1 }), ['body.companyId']);
      const chosen = await create({ clientId: client.id, companyId: other.id, lineItems: line, daysUntilDue: 1 });
      assert.equal(chosen.json().companyId, other.id);
      const billed = { companyId: company.id };
      assertProblems(await create({ ...billed, daysUntilDue: 1 }), ['body.lineItems']);
      assertProblems(await create({ ...billed, lineItems: [{ quantity: 1 }], daysUntilDue: 1 }), ['body.lineItems.0']);
      assertProblems(await create({ ...billed, lineItems: [{ amount: 1, priceId: 'p', quantity: 1 }], daysUntilDue: 1 }), [
        'body.lineItems.0',
      ]);
      assertProblems(await create({ ...billed, lineItems: [{ priceId: 'nope', quantity: 1 }], daysUntilDue: 1 }), [
        'body.lineItems.0.priceId',
      ]);
      assertProblems(await create({ ...billed, lineItems: [{ amount: 1, quantity: 1.00001 }], daysUntilDue: 1 }), [
        'body.lineItems.0.quantity',
      ]);
      assertProblems(await create({ ...billed, lineItems: [{ amount: 1, quantity: 0 }], daysUntilDue: 1 }), ['body.lineItems.0.quantity']);
      assertProblems(await create({ ...billed, lineItems: [{ amount: -1, quantity: 1 }], daysUntilDue: 1 }), ['body.lineItems.0.amount']);
      assertProblems(await create({ ...billed, lineItems: line, daysUntilDue: 31 }), ['body.daysUntilDue']);
      assertProblems(await create({ ...billed, lineItems: line, daysUntilDue: -1 }), ['body.daysUntilDue']);
      assertProblems(await create({ ...billed, lineItems: line }), ['body.daysUntilDue']);
      assertProblems(await create({ ...billed, lineItems: line, daysUntilDue: 1, taxPercentage: 100.5 }), ['body.taxPercentage']);
      assertProblems(await create({ ...billed, lineItems: line, daysUntilDue: 1, taxPercentage: 8.2555 }), ['body.taxPercentage']);
      assertProblems(await create({ ...billed, lineItems: line, daysUntilDue: 1, templateId: 'nope' }), ['body.templateId']);
      assertProblems(
        await create({ ...billed, lineItems: line, daysUntilDue: 1, paymentMethodPreferences: [{ type: 'cash', feePaidByClient: false }] }),
        ['body.paymentMethodPreferences.0.type'],
      );
    });

    test('numbers: 50 concurrent creations take 0001–0050, no gap, no duplicate', async (t) => {
      const { h, ws, company, create } = await world(t, backend);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 })),
      );
      assert.ok(
        results.every((r) => r.statusCode === 200),
        results.map((r) => r.statusCode).join(),
      );
      const numbers = results.map((r) => r.json().number).sort();
      assert.deepEqual(
        numbers,
        Array.from({ length: 50 }, (_, i) => String(i + 1).padStart(4, '0')),
      );
      const other = await h.workspace('Other');
      const otherCompany = await createCompany(h, other.apiKey, { name: 'O' });
      const first = await create({ companyId: otherCompany.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 }, other.apiKey);
      assert.equal(first.json().number, '0001', 'per workspace');
      const failed = await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 99 });
      assert.equal(failed.statusCode, 400);
      const next = await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 });
      assert.equal(next.json().number, '0051', 'a refused invoice takes no number');
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: '/v1/invoices?limit=100' })).json().data.length, 51);
    });

    test('pay and void (admin): payment, invoicePaid and paymentSucceeded; a paid invoice cannot be voided (409)', async (t) => {
      const { h, ws, company, create, audit } = await world(t, backend);
      const invoice = (await create({ companyId: company.id, lineItems: [{ amount: 2500, quantity: 2 }], daysUntilDue: 7 })).json();
      const admin = (action: string, id = invoice.id) =>
        adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/invoices/${id}/${action}`);
      h.clock.advance(60_000);
      const paid = await admin('pay');
      assert.equal(paid.statusCode, 200, paid.body);
      assert.deepEqual([paid.json().status, paid.json().paymentSuccessDate], ['paid', new Date(NOON + 60_000).toISOString()]);
      const payments = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/payments?invoiceId=${invoice.id}` })).json().data;
      assert.deepEqual(
        payments.map((p: Record<string, unknown>) => [p.object, p.invoiceId, p.status, p.amount, p.paymentMethod]),
        [['payment', invoice.id, 'succeeded', 5000, 'manual']],
      );
      assert.equal((await audit('invoicePaid'))[0].ref, invoice.id);
      assert.equal((await audit('paymentSucceeded'))[0].ref, payments[0].id);
      assert.deepEqual([(await admin('pay')).statusCode, (await admin('void')).statusCode], [409, 409]);
      assert.equal((await admin('void')).json().message, 'A paid invoice cannot be voided.');
      const open = (await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 7 })).json();
      const voided = await admin('void', open.id);
      assert.deepEqual([voided.statusCode, voided.json().status], [200, 'void']);
      assert.equal((await audit('invoiceVoided'))[0].ref, open.id);
      assert.equal((await admin('pay', open.id)).statusCode, 409, 'a void invoice cannot be paid');
      assert.equal((await admin('pay', '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b')).statusCode, 404);
      assert.equal((await audit('invoiceCreated')).length, 2);
    });

    test('mark paid and void on /v1 (keys and admins; staff and clients 403): forty at once over sockets, one wins', async (t) => {
      const { h, ws, app, client, company, create, audit } = await world(t, backend);
      const open = async () => (await create({ clientId: client.id, lineItems: [{ amount: 2500, quantity: 2 }], daysUntilDue: 7 })).json();
      const act = (key: string, id: string, action: 'mark-paid' | 'void') =>
        h.as(key, { method: 'POST', url: `/v1/invoices/${id}/${action}` });
      const admin = await createTestInternalUser(h, ws.workspaceId, { email: 'a@a.test', givenName: 'A', familyName: 'D', role: 'admin' });
      const adminKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: admin.id });
      const staff = await createTestInternalUser(h, ws.workspaceId, { email: 's@a.test', givenName: 'S', familyName: 'T', role: 'staff' });
      const staffKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: staff.id });
      const clientKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });

      const first = await open();
      for (const key of [staffKey, clientKey]) {
        assert.deepEqual([(await act(key, first.id, 'mark-paid')).statusCode, (await act(key, first.id, 'void')).statusCode], [403, 403]);
      }
      // Forty marks at once over real sockets, by the admin's session and the key: one pays (a manual payment of the
      // total), the others find it paid.
      const base = await listening(h.app);
      const over = (key: string, id: string, action: 'mark-paid' | 'void') =>
        jsonRequest<{ status: string; paymentSuccessDate?: string; message?: string }>(base, 'POST', `/v1/invoices/${id}/${action}`, {
          'x-api-key': key,
        });
      const marks = await Promise.all(Array.from({ length: 40 }, (_, i) => over(i % 2 ? adminKey : ws.apiKey, first.id, 'mark-paid')));
      assert.deepEqual(marks.map((r) => r.status).sort(), [200, ...Array(39).fill(409)], JSON.stringify(marks.map((r) => r.body)));
      const paid = marks.find((r) => r.status === 200)?.body;
      assert.deepEqual([paid?.status, paid?.paymentSuccessDate], ['paid', AT]);
      for (const refused of marks.filter((r) => r.status === 409))
        assert.equal(refused.body.message, 'Only an open invoice can be paid; this one is paid.');
      const payments = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/payments?invoiceId=${first.id}` })).json().data;
      assert.deepEqual(
        payments.map((p: Record<string, unknown>) => [p.status, p.amount, p.paymentMethod]),
        [['succeeded', 5000, 'manual']],
      );
      assert.equal((await audit('invoicePaid')).length, 1);
      const voidPaid = await act(adminKey, first.id, 'void');
      assert.deepEqual([voidPaid.statusCode, voidPaid.json().message], [409, 'A paid invoice cannot be voided.']);

      // Void: an open invoice, forty times at once (one voids it); then twenty marks and twenty voids of another at once:
      // one of them wins, and the invoice is either paid once or void, never both.
      const second = await open();
      const voids = await Promise.all(Array.from({ length: 40 }, () => over(adminKey, second.id, 'void')));
      assert.deepEqual(voids.map((r) => r.status).sort(), [200, ...Array(39).fill(409)]);
      assert.equal(voids.find((r) => r.status === 200)?.body.status, 'void');
      assert.deepEqual(
        (await audit('invoiceVoided')).map((e: { ref: string }) => e.ref),
        [second.id],
      );
      const third = await open();
      const race = await Promise.all(Array.from({ length: 40 }, (_, i) => over(adminKey, third.id, i % 2 ? 'void' : 'mark-paid')));
      const won = race.filter((r) => r.status === 200);
      assert.deepEqual([won.length, race.filter((r) => r.status === 409).length], [1, 39]);
      const after = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/invoices/${third.id}` })).json();
      assert.equal(after.status, won[0].body.status);
      const thirdPayments = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/payments?invoiceId=${third.id}` })).json().data;
      assert.equal(thirdPayments.length, after.status === 'paid' ? 1 : 0, 'a void invoice has no payment; a paid one, one');
      assert.equal((await act(adminKey, second.id, 'mark-paid')).statusCode, 409, 'a void invoice cannot be paid');
      const draft = (
        await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1, createDraft: true })
      ).json();
      assert.equal((await act(adminKey, draft.id, 'mark-paid')).statusCode, 409, 'a draft cannot be paid');
      assert.equal((await act(adminKey, draft.id, 'void')).json().status, 'void');
      assert.equal((await act(adminKey, '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', 'void')).statusCode, 404);
      const other = await h.workspace('Other');
      assert.equal((await act(other.apiKey, (await open()).id, 'mark-paid')).statusCode, 404, 'another workspace’s invoice');
    });

    test('a draft’s lifecycle (invoiceUpdated, invoiceInitiated, invoiceDeleted): edited, finalised with the next number, deleted without a gap', async (t) => {
      const { h, ws, client, company, create, audit } = await world(t, backend);
      const call = (method: 'PATCH' | 'POST' | 'DELETE', url: string, payload?: object) =>
        h.as(ws.apiKey, { method, url, ...(payload ? { payload } : {}) });
      const draft = (
        await create({ companyId: company.id, lineItems: [{ amount: 1000, quantity: 1 }], daysUntilDue: 7, createDraft: true })
      ).json();
      const doomed = (
        await create({ companyId: company.id, lineItems: [{ amount: 5, quantity: 1 }], daysUntilDue: 7, createDraft: true })
      ).json();
      const first = (await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 })).json();
      assert.equal(first.number, '0001', 'drafts take no number');

      h.clock.advance(60_000);
      const edited = await call('PATCH', `/v1/invoices/${draft.id}`, {
        clientId: client.id,
        taxPercentage: 10,
        memo: 'Thanks',
        daysUntilDue: 3,
      });
      assert.equal(edited.statusCode, 200, edited.body);
      const later = new Date(NOON + 60_000).toISOString();
      assert.deepEqual(
        edited.json(),
        {
          ...draft,
          clientId: client.id,
          clientUserId: client.id,
          recipientId: client.id,
          taxPercentage: 10,
          memo: 'Thanks',
          daysUntilDue: 3,
          taxAmount: 100,
          total: 1100,
          dueDate: new Date(NOON + 3 * DAY).toISOString(),
          updatedAt: later,
        },
        'the fields given replace the draft’s; the lines stay; amounts and due date recomputed',
      );
      const updated = (await audit('invoiceUpdated'))[0];
      assert.deepEqual(
        [updated.ref, updated.previousAttributes],
        [
          draft.id,
          {
            recipientId: company.id,
            memo: '',
            taxPercentage: 0,
            daysUntilDue: 7,
            taxAmount: 0,
            total: 1000,
            dueDate: new Date(NOON + 7 * DAY).toISOString(),
          },
        ],
      );
      const relined = await call('PATCH', `/v1/invoices/${draft.id}`, { lineItems: [{ amount: 2000, quantity: 2, description: 'Two' }] });
      assert.deepEqual(
        [relined.json().lineItems, relined.json().subtotal, relined.json().total, relined.json().memo],
        [[{ amount: 2000, description: 'Two', quantity: 2, total: 4000 }], 4000, 4400, 'Thanks'],
      );
      const bad = await call('PATCH', `/v1/invoices/${draft.id}`, { daysUntilDue: 31, companyId: 'nope' });
      assert.deepEqual([bad.statusCode, bad.json().data.map((p: { path: string }) => p.path)], [400, ['body.daysUntilDue']]);
      const stranger = await call('PATCH', `/v1/invoices/${draft.id}`, { companyId: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b' });
      assert.deepEqual(
        [stranger.statusCode, stranger.json().data],
        [400, [{ path: 'body.companyId', message: 'is not a company of the client' }]],
      );

      const deleted = await call('DELETE', `/v1/invoices/${doomed.id}`);
      assert.deepEqual([deleted.statusCode, deleted.json()], [200, { id: doomed.id, object: 'invoice', deleted: true }]);
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: `/v1/invoices/${doomed.id}` })).statusCode, 404);
      assert.equal((await audit('invoiceDeleted'))[0].ref, doomed.id);

      h.clock.advance(60_000);
      const finalized = await call('POST', `/v1/invoices/${draft.id}/finalize`);
      assert.equal(finalized.statusCode, 200, finalized.body);
      const sent = new Date(NOON + 120_000).toISOString();
      assert.deepEqual(
        [finalized.json().number, finalized.json().status, finalized.json().sentDate, finalized.json().dueDate, finalized.json().updatedAt],
        ['0002', 'open', sent, new Date(NOON + 120_000 + 3 * DAY).toISOString(), sent],
        'the next number, taken now: the deleted draft left no gap',
      );
      const initiated = (await audit('invoiceInitiated'))[0];
      assert.deepEqual([initiated.ref, initiated.previousAttributes], [draft.id, { status: 'draft' }]);

      for (const [method, url, payload] of [
        ['PATCH', `/v1/invoices/${draft.id}`, { memo: 'x' }],
        ['POST', `/v1/invoices/${draft.id}/finalize`, undefined],
        ['DELETE', `/v1/invoices/${draft.id}`, undefined],
        ['DELETE', `/v1/invoices/${first.id}`, undefined],
      ] as const) {
        const res = await call(method, url, payload);
        assert.equal(res.statusCode, 409, `${method} ${url}: ${res.body}`);
        assert.match(res.json().message, /^Only a draft can be (edited|finalised|deleted); this invoice is open \(void it instead\)\.$/);
      }
      const missing = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
      assert.deepEqual(
        [
          (await call('PATCH', `/v1/invoices/${missing}`, { memo: 'x' })).statusCode,
          (await call('POST', `/v1/invoices/${missing}/finalize`)).statusCode,
        ],
        [404, 404],
      );
    });

    test('a draft’s lifecycle: concurrent finalisations of many drafts take gapless numbers; other workspaces and staff cannot touch a draft', async (t) => {
      const { h, ws, app, company, create } = await world(t, backend);
      const drafts = await Promise.all(
        Array.from({ length: 20 }, () =>
          create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1, createDraft: true }),
        ),
      );
      const finalized = await Promise.all(
        drafts.map((d) => h.as(ws.apiKey, { method: 'POST', url: `/v1/invoices/${d.json().id}/finalize` })),
      );
      assert.deepEqual(
        finalized.map((r) => r.json().number).sort(),
        Array.from({ length: 20 }, (_, i) => String(i + 1).padStart(4, '0')),
      );
      const draft = (
        await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1, createDraft: true })
      ).json();
      const other = await h.workspace('Other');
      for (const [method, url] of [
        ['PATCH', `/v1/invoices/${draft.id}`],
        ['POST', `/v1/invoices/${draft.id}/finalize`],
        ['DELETE', `/v1/invoices/${draft.id}`],
      ] as const) {
        const res = await h.as(other.apiKey, { method, url, ...(method === 'PATCH' ? { payload: { memo: 'x' } } : {}) });
        assert.equal(res.statusCode, 404, `another workspace: ${method} ${url}`);
      }
      const staff = await createTestInternalUser(h, ws.workspaceId, { email: 's@a.test', givenName: 'S', familyName: 'T', role: 'staff' });
      const staffKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: staff.id });
      const refused = await h.as(staffKey, { method: 'DELETE', url: `/v1/invoices/${draft.id}` });
      assert.deepEqual([refused.statusCode, refused.json().message], [403, 'Staff may not do this; an admin may.']);
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: `/v1/invoices/${draft.id}` })).json().status, 'draft');
    });

    test('clients see no drafts: a draft (and a draft voided unsent) is absent to a client session in lists, by id and by status=draft, until finalised', async (t) => {
      const { h, ws, app, client, company, create } = await world(t, backend);
      const line = { lineItems: [{ amount: 100, quantity: 1 }], daysUntilDue: 7 };
      const sent = (await create({ clientId: client.id, ...line })).json();
      const draft = (await create({ clientId: client.id, ...line, createDraft: true })).json();
      const companyDraft = (await create({ companyId: company.id, ...line, createDraft: true })).json();
      const voidedDraft = (await create({ clientId: client.id, ...line, createDraft: true })).json();
      const voided = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/invoices/${voidedDraft.id}/void`);
      assert.equal(voided.statusCode, 200, voided.body);
      const clientKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const get = (url: string, key = clientKey) => h.as(key, { method: 'GET', url });
      const ids = async (url: string, key = clientKey) => {
        const res = await get(url, key);
        assert.equal(res.statusCode, 200, res.body);
        return res.json().data.map((i: { id: string }) => i.id);
      };
      assert.deepEqual(await ids('/v1/invoices'), [sent.id], 'only what was sent to it');
      assert.deepEqual(await ids('/v1/invoices?status=draft'), [], 'status=draft: an empty page');
      assert.deepEqual(await ids(`/v1/invoices?status=draft&clientId=${client.id}`), []);
      assert.deepEqual(await ids('/v1/invoices?status=void'), [], 'a draft voided before it was sent was never sent');
      const notFound = { code: 'not_found', message: 'Invoice not found.', data: null };
      for (const hidden of [draft, companyDraft, voidedDraft]) {
        const res = await get(`/v1/invoices/${hidden.id}`);
        assert.deepEqual([res.statusCode, res.json()], [404, notFound], `by id: ${hidden.id}`);
      }
      assert.deepEqual(
        (await ids('/v1/invoices?status=draft', ws.apiKey)).sort(),
        [draft.id, companyDraft.id].sort(),
        'staff still see their drafts',
      );
      const finalized = await h.as(ws.apiKey, { method: 'POST', url: `/v1/invoices/${draft.id}/finalize` });
      assert.equal(finalized.statusCode, 200, finalized.body);
      assert.deepEqual(
        await get(`/v1/invoices/${draft.id}`).then((r) => [r.statusCode, r.json()]),
        [200, finalized.json()],
        'finalised: sent',
      );
      assert.deepEqual((await ids('/v1/invoices')).sort(), [sent.id, draft.id].sort());
    });

    test('who may: staff may not create (403); a client session reads its own and its company’s invoices; other workspaces nothing', async (t) => {
      const { h, ws, app, client, company, create } = await world(t, backend);
      const beta = await createCompany(h, ws.apiKey, { name: 'Beta' });
      const mine = (await create({ clientId: client.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 })).json();
      const companys = (await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 })).json();
      const betas = (await create({ companyId: beta.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 })).json();
      const staff = await createTestInternalUser(h, ws.workspaceId, { email: 's@a.test', givenName: 'S', familyName: 'T', role: 'staff' });
      const staffKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: staff.id });
      const refused = await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 }, staffKey);
      assert.deepEqual([refused.statusCode, refused.json().message], [403, 'Staff may not do this; an admin may.']);
      const clientKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const listed = (await h.as(clientKey, { method: 'GET', url: '/v1/invoices' })).json().data.map((i: { id: string }) => i.id);
      assert.deepEqual(listed.sort(), [mine.id, companys.id].sort());
      assert.equal((await h.as(clientKey, { method: 'GET', url: `/v1/invoices/${betas.id}` })).statusCode, 404);
      assert.equal(
        (await create({ companyId: company.id, lineItems: [{ amount: 1, quantity: 1 }], daysUntilDue: 1 }, clientKey)).statusCode,
        403,
      );
      const byStatus = (await h.as(ws.apiKey, { method: 'GET', url: `/v1/invoices?companyId=${beta.id}&status=open` })).json().data;
      assert.deepEqual(
        byStatus.map((i: { id: string }) => i.id),
        [betas.id],
      );
      const other = await h.workspace('Other');
      assert.equal((await h.as(other.apiKey, { method: 'GET', url: `/v1/invoices/${mine.id}` })).statusCode, 404);
      assert.deepEqual((await h.as(other.apiKey, { method: 'GET', url: '/v1/invoices' })).json().data, []);
    });
  });
}
