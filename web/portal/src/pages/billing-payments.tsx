import { DataTable, ListState, Pager, usePaged } from '../../../kit/list.js';
import { ok, v1 } from '../api.js';
import { Link } from '../router.js';
import { useLoad } from '../../../kit/ui.js';
import { partyName, partyWanted, useNames } from '../names.js';
import { useSignedIn } from '../signed-in.js';
import { PageHeading } from '../ui.js';
import { BillingNav, StatusBadge, cardName, formatDay, formatMoney, invoiceTitle } from './billing-parts.js';

/**
 * Every payment of the person's invoices, newest first: those that went through (with what was refunded of them)
 * and the declined attempts. A payment names its invoice by id: the invoices' numbers come from their list.
 */
export function PaymentsPage({ path }: { path: string }) {
  const list = usePaged((nextToken) => ok(v1.GET('/v1/payments', { params: { query: { limit: 25, nextToken } } })), []);
  const invoices = useLoad(() => ok(v1.GET('/v1/invoices', { params: { query: { limit: 1000 } } })), []);
  const invoiceOf = (invoiceId: string) => invoices.data?.data.find((invoice) => invoice.id === invoiceId);
  // Amounts are in their invoice's currency: the rows wait for the invoices.
  const rows = invoices.loading ? [] : (list.data?.data ?? []);
  // Staff read whom each invoice bills (a client, its own).
  const { person } = useSignedIn();
  const staff = person.type !== 'client';
  const billed = rows.flatMap((payment) => invoiceOf(payment.invoiceId) ?? []);
  const name = useNames(person, staff ? billed.flatMap(partyWanted) : []);
  return (
    <>
      <PageHeading title="Payment history" />
      <BillingNav path={path} />
      <ListState list={list} empty="No payments yet." what="payments" />
      {rows.length > 0 ? (
        <DataTable
          caption="Payments, newest first"
          columns={
            staff ? ['Date', 'Invoice', 'Billed to', 'Amount', 'Paid with', 'Status'] : ['Date', 'Invoice', 'Amount', 'Paid with', 'Status']
          }
        >
          {rows.map((payment) => {
            const invoice = invoiceOf(payment.invoiceId);
            // An invoice beyond the first 1,000 (or their list failed): the amount without its currency.
            const money = (cents: number) => (invoice ? formatMoney(cents, invoice.currency) : (cents / 100).toFixed(2));
            return (
              <tr key={payment.id}>
                <td data-label="Date">{formatDay(payment.createdAt)}</td>
                <td data-label="Invoice">
                  <Link href={`/billing/invoices/${payment.invoiceId}`}>{invoice ? invoiceTitle(invoice) : 'The invoice'}</Link>
                </td>
                {staff ? (
                  <td data-label="Billed to" class="break">
                    {invoice ? partyName(invoice, name) : '—'}
                  </td>
                ) : null}
                <td data-label="Amount">
                  {money(payment.amount)}
                  {payment.amountRefunded ? <span class="refunded">Refunded {money(payment.amountRefunded)}</span> : null}
                </td>
                <td data-label="Paid with">{payment.paymentMethod === 'creditCard' ? cardName(payment) : 'Recorded by us'}</td>
                <td data-label="Status">
                  <StatusBadge status={payment.status} />
                  {payment.status === 'failed' && payment.message ? <span class="muted"> {payment.message}</span> : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
      <Pager list={list} label="Payments" />
    </>
  );
}
