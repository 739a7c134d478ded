import { invoiceName, markPaid, voidInvoice } from '../modules/resources/billing/index.js';
import { type CommandGroup, command, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

const options = { workspace: { type: 'string' }, invoice: { type: 'string' } } as const;

/** `portal invoices pay|void`: what the admin surface's invoice routes do. */
export const invoicesGroup: CommandGroup = {
  pay: command({
    usage: 'portal invoices pay --workspace W --invoice I',
    options,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const { invoice, payment } = await markPaid(database, caller, requireOption(values, 'invoice'));
      printResult(json, { ...invoice, paymentId: payment.id }, `Invoice ${invoice.number} paid (payment ${payment.id}).`);
    },
  }),
  void: command({
    usage: 'portal invoices void --workspace W --invoice I',
    options,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const invoice = await voidInvoice(database, caller, requireOption(values, 'invoice'));
      printResult(json, invoice, `${invoiceName(invoice)} voided.`);
    },
  }),
};
