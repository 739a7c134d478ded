/**
 * An invoice as a PDF (GET /v1/invoices/{id}/pdf): the workspace that bills, the client or company billed,
 * the lines, tax, totals, what is paid and what is still due, and the invoice's status and dates.
 */
import type { Readable } from 'node:stream';
import { type Brand, type TotalRow, pdfDate, pdfText, writePdf } from '../../../lib/pdf.js';
import type { Invoice } from './invoices.schemas.js';
import { formatMoney } from './money.js';

/** What the document shows besides the invoice itself. */
export interface InvoiceParties {
  brand: Brand;
  /** the client billed (absent when the invoice bills a company) */
  client?: { name: string; email: string };
  /** the company billed (absent when it is the client's placeholder company) */
  company?: { name: string };
}

const STATUS_LABEL: Record<Invoice['status'], string> = { draft: 'Draft', open: 'Open', paid: 'Paid', void: 'Void' };

/** An amount as the document shows it: the currency's symbol when the PDF's fonts can draw it, else its code. */
function documentMoney(cents: number, currency: string): string {
  const symbol = formatMoney(cents, currency);
  return pdfText(symbol) === symbol ? symbol : formatMoney(cents, currency, 'code');
}

/** The document's file name: the invoice's number (a draft, which has none, is named by its id). */
export const invoiceFileName = (invoice: Invoice) => (invoice.number === undefined ? `draft-${invoice.id}.pdf` : `${invoice.number}.pdf`);

/** What is still owed: nothing on a void invoice, else the total less what was paid. */
const amountDue = (invoice: Invoice, paid: number) => (invoice.status === 'void' ? 0 : Math.max(0, invoice.total - paid));

/**
 * The totals block, top to bottom. Another amount (a refund) is one more row here, placed before the amount
 * due it changes.
 */
function invoiceTotals(invoice: Invoice, paid: number): TotalRow[] {
  const money = (cents: number) => documentMoney(cents, invoice.currency);
  return [
    { label: 'Subtotal', value: money(invoice.subtotal) },
    { label: `Tax (${invoice.taxPercentage}%)`, value: money(invoice.taxAmount) },
    { label: 'Total', value: money(invoice.total), strong: true },
    { label: 'Amount paid', value: money(paid) },
    // A refund gives money back; it does not make the invoice due again.
    ...(invoice.amountRefunded === undefined ? [] : [{ label: 'Amount refunded', value: money(invoice.amountRefunded) }]),
    { label: 'Amount due', value: money(amountDue(invoice, paid)), strong: true },
  ];
}

export function invoicePdf(invoice: Invoice, paid: number, parties: InvoiceParties): Promise<Readable> {
  const title = invoice.number === undefined ? 'Draft invoice' : `Invoice ${invoice.number}`;
  const money = (cents: number) => documentMoney(cents, invoice.currency);
  const billedTo = [parties.client && `${parties.client.name} <${parties.client.email}>`, parties.company?.name].filter(
    (line): line is string => line !== undefined,
  );
  const dates: Array<readonly [string, string]> = [
    ['Status', STATUS_LABEL[invoice.status]],
    [invoice.sentDate === undefined ? 'Created' : 'Issued', pdfDate(invoice.sentDate ?? invoice.createdAt)],
    ['Due', pdfDate(invoice.dueDate)],
  ];
  if (invoice.paymentSuccessDate !== undefined) dates.push(['Paid', pdfDate(invoice.paymentSuccessDate)]);

  return writePdf({ title, author: parties.brand.name }, parties.brand, (pdf) => {
    pdf.header(title, `${STATUS_LABEL[invoice.status]} · ${money(invoice.total)} · due ${pdfDate(invoice.dueDate)}`);
    pdf.fields([['From', parties.brand.name], ['Billed to', billedTo.join('\n') || '–'], ...dates]);
    pdf.heading('Items');
    pdf.table(
      [
        { label: 'Description', width: 0.46 },
        { label: 'Quantity', width: 0.14, align: 'right' },
        { label: 'Unit price', width: 0.2, align: 'right' },
        { label: 'Amount', width: 0.2, align: 'right' },
      ],
      invoice.lineItems.map((line) => [line.description, String(line.quantity), money(line.amount), money(line.total)]),
    );
    pdf.totals(invoiceTotals(invoice, paid));
    if (invoice.memo !== '') pdf.heading('Memo').paragraph(invoice.memo);
    if (invoice.status === 'void') pdf.paragraph('This invoice was voided: nothing is due.', { muted: true });
  });
}
