// Rule (issue 33, point 3): payments can fail, and be refunded. Cards go on file through the payment processor (the
// built-in sandbox takes its test cards: 4242… succeeds, 4000…0002 is declined, 4000…9995 lacks funds, 4000…5126
// refuses refunds), never stored as numbers; paying an invoice records a succeeded payment (invoicePaid,
// paymentSucceeded) or a failed one (402, paymentFailed); refunds, whole or partial, keep the payment's and the
// invoice's amounts consistent (refundRequested, then refundSucceeded or refundFailed); a refund left pending by a crash
// is finished by the billing worker. Every workspace sees only its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { BACKENDS } from '../../../../test/helpers/harness.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';
import { sandboxProcessor } from './payment-processor.js';
import { settleStaleRefund } from './payments.service.js';

const VISA = { number: '4242424242424242', expMonth: 12, expYear: 2030 };
const DECLINED = { ...VISA, number: '4000000000000002' };
const NO_FUNDS = { ...VISA, number: '4000000000009995' };
const REFUSES_REFUNDS = { ...VISA, number: '4000000000005126' };
const AT = '2026-01-15T12:00:00.000Z';

async function world(t: Parameters<typeof moduleHarness>[0], backend: (typeof BACKENDS)[number]) {
  const w = await acmeAndBeta(await moduleHarness(t, backend));
  const card = async (card: object, owner: object = { clientId: w.ada.id }, key = w.ws.apiKey) =>
    okJson(await w.call('POST', '/v1/payment-methods', { ...owner, card }, key), 'card');
  const invoice = async (clientId = w.ada.id, amount = 10_000) =>
    okJson(
      await w.call('POST', '/v1/invoices', { clientId, lineItems: [{ amount, quantity: 1 }], taxPercentage: 10, daysUntilDue: 7 }),
      'invoice',
    );
  const pay = (id: string, body: object = {}, key = w.ws.apiKey) => w.call('POST', `/v1/invoices/${id}/pay`, body, key);
  return { ...w, card, invoice, pay };
}

for (const backend of BACKENDS) {
  describe(`payments and refunds [${backend}]`, () => {
    test('a card goes on file as its brand, last four digits and expiry; a number the sandbox does not take, or an expired card, is a 400 naming the field', async (t) => {
      const w = await world(t, backend);
      const card = await w.card(VISA);
      assert.deepEqual(card, {
        id: card.id,
        object: 'paymentMethod',
        type: 'creditCard',
        clientId: w.ada.id,
        companyId: w.acme.id,
        brand: 'visa',
        last4Digits: '4242',
        expMonth: 12,
        expYear: 2030,
        createdAt: AT,
        updatedAt: AT,
      });
      const realCard = await w.call('POST', '/v1/payment-methods', { clientId: w.ada.id, card: { ...VISA, number: '4111111111111111' } });
      assertProblems(realCard, ['body.card.number']);
      assert.match(realCard.json().data[0].message, /is not a sandbox test card/);
      const expired = await w.call('POST', '/v1/payment-methods', { clientId: w.ada.id, card: { ...VISA, expYear: 2025 } });
      assert.deepEqual([expired.statusCode, expired.json().data], [400, [{ path: 'body.card.expYear', message: 'the card has expired' }]]);
      assertProblems(await w.call('POST', '/v1/payment-methods', { card: VISA }), ['body.clientId']);
      assertProblems(await w.call('POST', '/v1/payment-methods', { clientId: w.ada.id, card: { ...VISA, number: '42-42' } }), [
        'body.card.number',
      ]);
      const companyCard = await w.card(NO_FUNDS, { companyId: w.beta.id });
      assert.equal(companyCard.clientId, undefined, 'a company’s card has no clientId');
      // A client session puts a card on file for itself, and sees its own and its companies' cards only.
      const adaSession = await w.session({ clientId: w.ada.id });
      w.h.clock.advance(1000); // newest first
      const own = okJson(await w.call('POST', '/v1/payment-methods', { card: DECLINED }, adaSession));
      assert.deepEqual([own.clientId, own.companyId, own.last4Digits], [w.ada.id, w.acme.id, '0002']);
      const seen = okJson(await w.call('GET', '/v1/payment-methods', undefined, adaSession));
      assert.deepEqual(
        seen.data.map((c: { id: string }) => c.id),
        [own.id, card.id],
      );
      assert.equal((await w.call('GET', `/v1/payment-methods/${companyCard.id}`, undefined, adaSession)).statusCode, 404);
      // Another workspace's card: 404 on get and delete.
      const other = await acmeAndBeta(w.h);
      assert.equal((await other.call('GET', `/v1/payment-methods/${card.id}`)).statusCode, 404);
      assert.equal((await other.call('DELETE', `/v1/payment-methods/${card.id}`)).statusCode, 404);
      assert.deepEqual(okJson(await w.call('DELETE', `/v1/payment-methods/${card.id}`)), {
        id: card.id,
        object: 'paymentMethod',
        deleted: true,
      });
      assert.equal((await w.call('GET', `/v1/payment-methods/${card.id}`)).statusCode, 404);
    });

    test('paying with a good card: the invoice paid, a succeeded payment naming the card, invoicePaid and paymentSucceeded', async (t) => {
      const w = await world(t, backend);
      const card = await w.card(VISA);
      const invoice = await w.invoice();
      const adaSession = await w.session({ clientId: w.ada.id });
      const paid = okJson(await w.pay(invoice.id, {}, adaSession), 'pay');
      assert.deepEqual([paid.status, paid.paymentSuccessDate, paid.attemptCount], ['paid', AT, 1]);
      const [payment] = okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data;
      assert.deepEqual(payment, {
        id: payment.id,
        object: 'payment',
        invoiceId: invoice.id,
        status: 'succeeded',
        amount: 11_000,
        paymentMethod: 'creditCard',
        paymentMethodId: card.id,
        last4Digits: '4242',
        brand: 'visa',
        feeAmount: { paidByPlatform: 0, paidByClient: 0 },
        createdAt: AT,
        updatedAt: AT,
      });
      const [succeeded] = await w.audit('paymentSucceeded');
      assert.deepEqual(succeeded.context, { invoiceId: invoice.id, paymentId: payment.id, amount: 11_000 });
      assert.deepEqual((await w.audit('invoicePaid'))[0].context, { invoiceId: invoice.id, paidManually: false });
      const again = await w.pay(invoice.id);
      assert.deepEqual([again.statusCode, again.json().message], [409, 'Only an open invoice can be paid; this one is paid.']);
    });

    test('a declined card: 402 payment_failed naming the failed payment, the invoice still open, paymentFailed recorded; no card on file is a 400', async (t) => {
      const w = await world(t, backend);
      const invoice = await w.invoice();
      const none = await w.pay(invoice.id);
      assert.deepEqual(
        [none.statusCode, none.json().data],
        [400, [{ path: 'body.paymentMethodId', message: 'is required: no card is on file for the party this invoice bills' }]],
      );
      await w.card(DECLINED);
      const declined = await w.pay(invoice.id);
      assert.equal(declined.statusCode, 402);
      const { paymentId } = declined.json().data;
      assert.deepEqual(declined.json(), {
        code: 'payment_failed',
        message: 'Your card was declined.',
        data: { paymentId, declineCode: 'generic_decline' },
      });
      const failed = okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data[0];
      assert.deepEqual(
        [failed.id, failed.status, failed.message, failed.declineCode, failed.last4Digits],
        [paymentId, 'failed', 'Your card was declined.', 'generic_decline', '0002'],
      );
      const noFunds = await w.card(NO_FUNDS);
      const short = await w.pay(invoice.id, { paymentMethodId: noFunds.id });
      assert.deepEqual([short.statusCode, short.json().data.declineCode], [402, 'insufficient_funds']);
      const after = okJson(await w.call('GET', `/v1/invoices/${invoice.id}`));
      assert.deepEqual([after.status, after.attemptCount, after.nextPaymentAttempt], ['open', 2, undefined]);
      assert.deepEqual((await w.audit('paymentFailed')).map((e) => e.context.declineCode).sort(), [
        'generic_decline',
        'insufficient_funds',
      ]);
      // A card of another party cannot pay it.
      const bobs = await w.card(VISA, { clientId: w.bob.id });
      assert.deepEqual((await w.pay(invoice.id, { paymentMethodId: bobs.id })).json().data, [
        { path: 'body.paymentMethodId', message: 'is not a card of the party this invoice bills' },
      ]);
      const other = await acmeAndBeta(w.h);
      assert.equal((await other.call('POST', `/v1/invoices/${invoice.id}/pay`, {})).statusCode, 404);
    });

    test('a client session lists the payments of the invoices it sees (its receipts and declined attempts), no one else’s', async (t) => {
      const w = await world(t, backend);
      const invoice = await w.invoice();
      const bobsInvoice = await w.invoice(w.bob.id);
      const adaSession = await w.session({ clientId: w.ada.id });
      const declinedCard = okJson(await w.call('POST', '/v1/payment-methods', { card: DECLINED }, adaSession));
      const declined = await w.pay(invoice.id, { paymentMethodId: declinedCard.id }, adaSession);
      assert.equal(declined.statusCode, 402);
      w.h.clock.advance(1000); // newest first
      const good = okJson(await w.call('POST', '/v1/payment-methods', { card: VISA }, adaSession));
      okJson(await w.pay(invoice.id, { paymentMethodId: good.id }, adaSession));
      await w.card(VISA, { clientId: w.bob.id });
      okJson(await w.pay(bobsInvoice.id));
      const seen = okJson(await w.call('GET', '/v1/payments', undefined, adaSession)).data;
      assert.deepEqual(
        seen.map((p: Record<string, unknown>) => [p.invoiceId, p.status, p.last4Digits, p.declineCode]),
        [
          [invoice.id, 'succeeded', '4242', undefined],
          [invoice.id, 'failed', '0002', 'generic_decline'],
        ],
      );
      assert.equal(seen[1].id, declined.json().data.paymentId);
      assert.deepEqual(okJson(await w.call('GET', `/v1/payments?invoiceId=${bobsInvoice.id}`, undefined, adaSession)), { data: [] });
      // Reading is all it may do: a refund stays the workspace's (404 to it).
      assert.equal((await w.call('POST', '/v1/refunds', { paymentId: seen[0].id }, adaSession)).statusCode, 404);
    });

    test('refunds: partial, then the rest by default; never more than is left; the payment and the invoice carry amountRefunded', async (t) => {
      const w = await world(t, backend);
      await w.card(VISA);
      const invoice = await w.invoice();
      okJson(await w.pay(invoice.id));
      const [payment] = okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data;
      const partial = okJson(await w.call('POST', '/v1/refunds', { paymentId: payment.id, amount: 4000, reason: 'One seat less' }));
      assert.deepEqual(partial, {
        id: partial.id,
        object: 'refund',
        paymentId: payment.id,
        invoiceId: invoice.id,
        amount: 4000,
        currency: 'usd',
        status: 'succeeded',
        reason: 'One seat less',
        createdAt: AT,
        updatedAt: AT,
      });
      w.h.clock.advance(1000); // the lists below are newest first
      const tooMuch = await w.call('POST', '/v1/refunds', { paymentId: payment.id, amount: 7001 });
      assert.deepEqual(tooMuch.json().data, [
        { path: 'body.amount', message: 'is more than the 7000 cents left to refund of this payment' },
      ]);
      const rest = okJson(await w.call('POST', '/v1/refunds', { paymentId: payment.id }));
      assert.deepEqual([rest.amount, rest.status], [7000, 'succeeded']);
      const done = await w.call('POST', '/v1/refunds', { paymentId: payment.id });
      assert.deepEqual([done.statusCode, done.json().message], [409, 'This payment has been refunded in full.']);
      assert.equal(okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data[0].amountRefunded, 11_000);
      const refunded = okJson(await w.call('GET', `/v1/invoices/${invoice.id}`));
      assert.deepEqual([refunded.status, refunded.amountRefunded], ['paid', 11_000]);
      assert.deepEqual(
        okJson(await w.call('GET', `/v1/refunds?paymentId=${payment.id}`)).data.map((r: { id: string }) => r.id),
        [rest.id, partial.id],
      );
      assert.deepEqual(
        (await w.audit('refundRequested')).map((e) => e.context.amount),
        [7000, 4000],
      );
      assert.equal(rest.createdAt, '2026-01-15T12:00:01.000Z');
      assert.deepEqual(
        (await w.audit('refundSucceeded')).map((e) => e.context.refundId),
        [rest.id, partial.id],
      );
      // Staff may not refund (403); a client session does not see refunds (404); another workspace neither.
      const staff = await w.session({ internalUserId: w.user.id });
      assert.equal((await w.call('POST', '/v1/refunds', { paymentId: payment.id }, staff)).statusCode, 403);
      assert.equal((await w.call('GET', `/v1/refunds/${rest.id}`, undefined, await w.session({ clientId: w.ada.id }))).statusCode, 404);
      const other = await acmeAndBeta(w.h);
      assert.equal((await other.call('GET', `/v1/refunds/${rest.id}`)).statusCode, 404);
      assert.equal((await other.call('POST', '/v1/refunds', { paymentId: payment.id })).statusCode, 404);
    });

    test('a card that refuses refunds: refundFailed, the refund failed with its reason, nothing refunded; a failed payment cannot be refunded', async (t) => {
      const w = await world(t, backend);
      await w.card(REFUSES_REFUNDS);
      const invoice = await w.invoice();
      okJson(await w.pay(invoice.id));
      const [payment] = okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data;
      const refused = okJson(await w.call('POST', '/v1/refunds', { paymentId: payment.id, amount: 500 }));
      assert.deepEqual([refused.status, refused.failureMessage], ['failed', 'The card’s issuer refused the refund.']);
      assert.equal(okJson(await w.call('GET', `/v1/invoices/${invoice.id}`)).amountRefunded, undefined);
      assert.equal(okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data[0].amountRefunded, undefined);
      assert.deepEqual((await w.audit('refundFailed'))[0].context, {
        invoiceId: invoice.id,
        paymentId: payment.id,
        refundId: refused.id,
        amount: 500,
      });
      // The failed refund's amount is free again: the whole payment can still be asked for.
      assert.equal(okJson(await w.call('GET', `/v1/refunds/${refused.id}`)).status, 'failed');
      const second = await w.invoice();
      w.h.clock.advance(1000); // the newest card is the one charged
      await w.card(DECLINED);
      const declined = await w.pay(second.id);
      const refundFailedPayment = await w.call('POST', '/v1/refunds', { paymentId: declined.json().data.paymentId });
      assert.deepEqual(
        [refundFailedPayment.statusCode, refundFailedPayment.json().message],
        [409, 'Only a succeeded payment can be refunded; this one failed.'],
      );
    });

    test('a refund whose request died between its two transactions holds its amount, and the billing worker finishes it after ten minutes, once', async (t) => {
      const w = await world(t, backend);
      await w.card(VISA);
      const invoice = await w.invoice();
      okJson(await w.pay(invoice.id));
      const [payment] = okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data;
      const crash = t.mock.method(sandboxProcessor, 'refund', async () => {
        throw new Error('the process died here');
      });
      assert.equal((await w.call('POST', '/v1/refunds', { paymentId: payment.id, amount: 4000 })).statusCode, 500);
      crash.mock.restore();
      const [pending] = okJson(await w.call('GET', `/v1/refunds?paymentId=${payment.id}`)).data;
      assert.deepEqual([pending.status, pending.amount], ['pending', 4000]);
      assertProblems(await w.call('POST', '/v1/refunds', { paymentId: payment.id, amount: 7001 }), ['body.amount']);
      const sweep = () => settleStaleRefund(w.h.app.ctx.database, sandboxProcessor, { workspaceId: null, now: w.h.clock.now() });
      assert.equal(await sweep(), false, 'not before ten minutes');
      w.h.clock.advance(10 * 60_000);
      assert.equal(await sweep(), true);
      assert.equal(await sweep(), false, 'once');
      const settled = okJson(await w.call('GET', `/v1/refunds/${pending.id}`));
      assert.deepEqual([settled.status, settled.updatedAt], ['succeeded', '2026-01-15T12:10:00.000Z']);
      assert.equal(okJson(await w.call('GET', `/v1/invoices/${invoice.id}`)).amountRefunded, 4000);
      assert.deepEqual(
        (await w.audit('refundSucceeded')).map((e) => e.context),
        [{ invoiceId: invoice.id, paymentId: payment.id, refundId: pending.id, amount: 4000 }],
      );
    });

    test('a payment marked paid by the operator is refunded outside any processor, and recorded', async (t) => {
      const w = await world(t, backend);
      const invoice = await w.invoice();
      const paid = await w.h.app.inject({
        method: 'POST',
        url: `/admin/workspaces/${w.ws.workspaceId}/invoices/${invoice.id}/pay`,
        headers: { authorization: `Bearer ${w.h.adminToken}` },
      });
      assert.equal(paid.statusCode, 200, paid.body);
      const [payment] = okJson(await w.call('GET', `/v1/payments?invoiceId=${invoice.id}`)).data;
      assert.equal(payment.paymentMethod, 'manual');
      const refund = okJson(await w.call('POST', '/v1/refunds', { paymentId: payment.id }));
      assert.deepEqual([refund.amount, refund.status], [11_000, 'succeeded']);
    });
  });
}
