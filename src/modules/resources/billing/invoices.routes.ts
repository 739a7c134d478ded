import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PdfQuery, PdfResponse, pdfHeaders } from '../../../lib/pdf.js';
import type { RoutePolicy } from '../../../lib/policy.js';
import { ADMIN_WRITE_ERRORS, adminDoc, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import {
  Invoice,
  InvoiceAdminParams,
  InvoiceCreate,
  InvoiceListQuery,
  InvoiceUpdate,
  Payment,
  PaymentListQuery,
} from './invoices.schemas.js';
import * as service from './invoices.service.js';

/** A client session reads its own invoices and its companies'; staff may not create invoices (an admin may). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
const ADMINS_CREATE: RoutePolicy = { clientSession: 'read', staff: false };
const tags = ['billing'];
const CLIENTS_SEE_SENT =
  'A client session sees only the invoices sent to it (its own and its companies’): a draft is staff’s until it is finalised, so ' +
  'a draft (or a draft voided unsent) is a 404 by id and absent from lists, and `status=draft` is an empty page.';

export default async function invoiceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/invoices',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listInvoices',
        summary: 'List invoices, newest first',
        description: CLIENTS_SEE_SENT,
        querystring: InvoiceListQuery,
        response: { 200: Page(Invoice), ...READ_ERRORS },
      },
    },
    async (request) => service.listInvoices(database, request.caller, request.query, pageTokens),
  );
  app.post(
    '/invoices',
    {
      config: { policy: ADMINS_CREATE },
      schema: {
        tags,
        operationId: 'createInvoice',
        summary: 'Create an invoice (open and sent, or a draft with createDraft)',
        description:
          'Each line is amount × quantity rounded half up to a cent; tax is subtotal × taxPercentage / 100 rounded half up; total = subtotal + tax. ' +
          'Amounts are integer cents. Numbers are sequential per workspace, without gaps.',
        body: InvoiceCreate,
        response: { 200: Invoice, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createInvoice(database, request.caller, request.body),
  );
  app.get(
    '/invoices/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveInvoice',
        summary: 'Retrieve an invoice',
        description: CLIENTS_SEE_SENT,
        params: IdParams,
        response: { 200: Invoice, ...READ_ERRORS },
      },
    },
    async (request) => service.getInvoice(database, request.caller, request.params.id),
  );
  app.get(
    '/invoices/:id/pdf',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'downloadInvoicePdf',
        summary: 'Download an invoice as a PDF: invoiceDownloaded',
        description:
          'Not in the SDK. The invoice as a document (application/pdf, an attachment named `<number>.pdf`; a draft `draft-<id>.pdf`; ' +
          'inline with `?disposition=inline`, for a preview): ' +
          'the workspace’s name in its brand colour, the client or company billed, the lines, tax, total, amount paid, amount due ' +
          '(nothing on a void invoice), status and dates; amounts as `$1,234.50` (the currency’s code where its symbol cannot be drawn). ' +
          `Who may read the invoice may download it: ${CLIENTS_SEE_SENT}`,
        params: IdParams,
        querystring: PdfQuery,
        response: { 200: PdfResponse('the invoice, as a PDF'), ...READ_ERRORS },
      },
    },
    async (request, reply) => {
      const document = await service.invoiceDocument(database, request.caller, request.params.id);
      return reply.headers(pdfHeaders(document, request.query.disposition)).send(document.stream);
    },
  );
  app.patch(
    '/invoices/:id',
    {
      config: { policy: ADMINS_CREATE },
      schema: {
        tags,
        operationId: 'updateInvoice',
        summary: 'Edit a draft invoice: invoiceUpdated; an issued invoice is a 409',
        description:
          'The fields given replace the draft’s, lineItems as a whole; a templateId fills what the body leaves out, as at creation. ' +
          'The amounts and the due date (from the draft’s creation) are recomputed. A draft changed by another request meanwhile is a 409: retry.',
        params: IdParams,
        body: InvoiceUpdate,
        response: { 200: Invoice, ...WRITE_ERRORS },
      },
    },
    async (request) => service.updateDraft(database, request.caller, request.params.id, request.body),
  );
  app.post(
    '/invoices/:id/finalize',
    {
      config: { policy: ADMINS_CREATE },
      schema: {
        tags,
        operationId: 'finalizeInvoice',
        summary: 'Finalise a draft into an open invoice sent to its client: invoiceInitiated; an issued invoice is a 409',
        description:
          'The draft takes the workspace’s next number now (drafts have none, so deleted drafts leave no gaps); sentDate is now and dueDate now + daysUntilDue.',
        params: IdParams,
        response: { 200: Invoice, ...WRITE_ERRORS },
      },
    },
    async (request) => service.finalizeInvoice(database, request.caller, request.params.id),
  );
  app.post(
    '/invoices/:id/mark-paid',
    {
      config: { policy: ADMINS_CREATE },
      schema: {
        tags,
        operationId: 'markInvoicePaid',
        summary: 'Mark an open invoice paid, for a payment made outside this service: invoicePaid and paymentSucceeded',
        description:
          'Not in the SDK (Stripe’s `paid_out_of_band`; the billing fields’ `paidManually`). Records a `manual` payment of the total, ' +
          'in one transaction with the invoice locked: marked twice at once, it is paid once (the other is a 409). A draft, paid or void ' +
          'invoice is a 409. Automatic charges stop; a past-due subscription of it is active again. An internal user with the staff role ' +
          'and a client session get a 403. As `POST /admin/workspaces/{id}/invoices/{invoiceId}/pay`.',
        params: IdParams,
        response: { 200: Invoice, ...WRITE_ERRORS },
      },
    },
    async (request) => (await service.markPaid(database, request.caller, request.params.id)).invoice,
  );
  app.post(
    '/invoices/:id/void',
    {
      config: { policy: ADMINS_CREATE },
      schema: {
        tags,
        operationId: 'voidInvoice',
        summary: 'Void a draft or open invoice: invoiceVoided; a paid or void one is a 409',
        description:
          'Not in the SDK (Stripe’s `POST /v1/invoices/{id}/void`). A voided invoice is no longer due and is never charged. An internal ' +
          'user with the staff role and a client session get a 403. As `POST /admin/workspaces/{id}/invoices/{invoiceId}/void`.',
        params: IdParams,
        response: { 200: Invoice, ...WRITE_ERRORS },
      },
    },
    async (request) => service.voidInvoice(database, request.caller, request.params.id),
  );
  app.delete(
    '/invoices/:id',
    {
      config: { policy: ADMINS_CREATE },
      schema: {
        tags,
        operationId: 'deleteInvoice',
        summary: 'Delete a draft invoice for good: invoiceDeleted; an issued invoice is a 409 (void it instead)',
        description:
          'Not in the SDK. A draft only: an issued invoice is a 409 (void it instead: `POST /v1/invoices/{id}/void`). An internal user with the ' +
          'staff role and a client session get a 403.',
        params: IdParams,
        response: { 200: DeletedBody, ...WRITE_ERRORS },
      },
    },
    async (request) => service.deleteDraft(database, request.caller, request.params.id),
  );
  app.get(
    '/payments',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listPayments',
        summary: 'List payments, newest first',
        description:
          'Filter `invoiceId`. A payment is recorded when an invoice is paid (a card charged, or marked paid), and a declined charge ' +
          'as a failed one. A client session sees the payments of the invoices it sees (its receipts and declined attempts).',
        querystring: PaymentListQuery,
        response: { 200: Page(Payment), ...READ_ERRORS },
      },
    },
    async (request) => service.listPayments(database, request.caller, request.query, pageTokens),
  );
}

/** Marking paid and voiding on the admin surface (as `portal invoices pay|void`). */
export async function invoiceAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;
  app.post(
    '/workspaces/:workspaceId/invoices/:invoiceId/pay',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminPayInvoice',
        summary: 'Mark an open invoice paid (paidManually): its payment, invoicePaid and paymentSucceeded; otherwise 409',
        description: 'For payments made outside this service. A draft, paid or void invoice is a 409. As `portal invoices pay`.',
        params: InvoiceAdminParams,
        response: { 200: Invoice, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => (await service.markPaid(database, request.caller, request.params.invoiceId)).invoice,
  );
  app.post(
    '/workspaces/:workspaceId/invoices/:invoiceId/void',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminVoidInvoice',
        summary: 'Void a draft or open invoice (invoiceVoided); a paid one is a 409',
        description: 'A voided invoice is no longer due. A paid or void invoice is a 409. As `portal invoices void`.',
        params: InvoiceAdminParams,
        response: { 200: Invoice, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.voidInvoice(database, request.caller, request.params.invoiceId),
  );
}
