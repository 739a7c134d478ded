import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { DELETE_ERRORS, DeletedBody, errorResponses, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { Invoice } from './invoices.schemas.js';
import {
  InvoicePay,
  PaymentMethod,
  PaymentMethodCreate,
  PaymentMethodListQuery,
  PaymentMethodParams,
  Refund,
  RefundCreate,
  RefundListQuery,
} from './payments.schemas.js';
import * as service from './payments.service.js';

const tags = ['billing'];
/** A client session keeps its own cards and pays its own invoices. */
const CLIENTS_WRITE: RoutePolicy = { clientSession: 'write' };
/** Refunds are an admin's (and a key's): staff get 403, client sessions 404. */
const ADMINS_ONLY: RoutePolicy = { staff: false };
const PAY_ERRORS = { ...WRITE_ERRORS, ...errorResponses(402) };

export default async function paymentRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;
  const { processor } = app.ctx.billing;

  app.post(
    '/payment-methods',
    {
      config: { policy: CLIENTS_WRITE },
      schema: {
        tags,
        operationId: 'createPaymentMethod',
        summary: 'Put a card on file for a client or a company',
        description:
          'Not in the SDK. The card is tokenized by the payment processor; its number and CVC are never stored (brand, last four digits ' +
          'and expiry are). The built-in sandbox processor takes only its test cards (docs/api.md, Payments): 4242424242424242 ' +
          'succeeds, 4000000000000002 is declined, 4000000000009995 lacks funds, 4000000000005126 refuses refunds. A client session puts ' +
          'a card on file for itself (clientId and companyId default to its own). The newest card of a party is the one charged.',
        body: PaymentMethodCreate,
        response: { 200: PaymentMethod, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createPaymentMethod(database, processor, request.caller, request.body),
  );
  app.get(
    '/payment-methods',
    {
      config: { policy: CLIENTS_WRITE },
      schema: {
        tags,
        operationId: 'listPaymentMethods',
        summary: 'List cards on file, newest first',
        description: 'Not in the SDK. A client session sees its own cards and its companies’.',
        querystring: PaymentMethodListQuery,
        response: { 200: Page(PaymentMethod), ...READ_ERRORS },
      },
    },
    async (request) => service.listPaymentMethods(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/payment-methods/:id',
    {
      config: { policy: CLIENTS_WRITE },
      schema: {
        tags,
        operationId: 'retrievePaymentMethod',
        summary: 'Retrieve a card on file',
        description: 'Not in the SDK. A client session sees its own cards and its companies’.',
        params: PaymentMethodParams,
        response: { 200: PaymentMethod, ...READ_ERRORS },
      },
    },
    async (request) => service.getPaymentMethod(database, request.caller, request.params.id),
  );
  app.delete(
    '/payment-methods/:id',
    {
      config: { policy: CLIENTS_WRITE },
      schema: {
        tags,
        operationId: 'deletePaymentMethod',
        summary: 'Remove a card on file',
        description: 'Payments made with it keep its brand and last four digits.',
        params: PaymentMethodParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deletePaymentMethod(database, request.caller, request.params.id),
  );
  app.post(
    '/invoices/:id/pay',
    {
      config: { policy: CLIENTS_WRITE },
      schema: {
        tags,
        operationId: 'payInvoice',
        summary: 'Pay an open invoice with a card now: invoicePaid and paymentSucceeded, or a 402 and paymentFailed',
        description:
          'Not in the SDK. Charges paymentMethodId, else the newest card of the party billed. Paid: 200 with the invoice. Declined: 402 ' +
          '`payment_failed`, `message` the decline’s, `data` {paymentId, declineCode} (the failed payment is recorded; automatic ' +
          'retries keep their schedule). A draft, paid or void invoice is a 409. A client session pays its own invoices.',
        params: IdParams,
        body: InvoicePay,
        response: { 200: Invoice, ...PAY_ERRORS },
      },
    },
    async (request) => service.payInvoice(database, processor, request.caller, request.params.id, request.body ?? {}),
  );
  app.post(
    '/refunds',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'createRefund',
        summary: 'Refund a payment, whole or in part: refundRequested, then refundSucceeded or refundFailed',
        description:
          'Not in the SDK. amount defaults to what is left to refund of the payment; more than that is a 400 naming body.amount; a failed ' +
          'payment or one refunded in full is a 409. Answered with the refund settled: succeeded (the payment’s and the invoice’s ' +
          'amountRefunded grow by it, in one transaction) or failed (failureMessage). The invoice stays paid. A payment marked paid by an ' +
          'operator is refunded outside any processor, and recorded. Staff get a 403.',
        body: RefundCreate,
        response: { 200: Refund, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createRefund(database, processor, request.caller, request.body),
  );
  app.get(
    '/refunds',
    {
      schema: {
        tags,
        operationId: 'listRefunds',
        summary: 'List refunds, newest first',
        description: 'Not in the SDK. Filters paymentId, invoiceId. Client sessions get a 404.',
        querystring: RefundListQuery,
        response: { 200: Page(Refund), ...READ_ERRORS },
      },
    },
    async (request) => service.listRefunds(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/refunds/:id',
    {
      schema: {
        tags,
        operationId: 'retrieveRefund',
        summary: 'Retrieve a refund',
        description: 'Not in the SDK. Client sessions get a 404.',
        params: IdParams,
        response: { 200: Refund, ...READ_ERRORS },
      },
    },
    async (request) => service.getRefund(database, request.caller, request.params.id),
  );
}
