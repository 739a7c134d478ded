import { admin, type Page, path, v1, ok, v1Api } from '../api.js';
import type { Invoice, Subscription } from '../types.js';
import {
  Badge,
  DataTable,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  RowButton,
  Status,
  formatDate,
  formatMoney,
  useAction,
  usePaged,
  FilterForm,
  useListQuery,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

export function BillingPage({ workspaceId }: { workspaceId: string }) {
  return (
    <>
      <PageHeading title="Invoices & subscriptions" context={useWorkspaceName()} />
      <Invoices workspaceId={workspaceId} />
      <Subscriptions workspaceId={workspaceId} />
    </>
  );
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "invoice 0007", or "draft invoice <id>" before it has a number. */
const invoiceName = (invoice: Invoice) => (invoice.number ? `invoice ${invoice.number}` : `draft invoice ${invoice.id}`);

function Invoices({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    { status: '' },
    (filters, nextToken) => v1(workspaceId).get<Page<Invoice>>('/invoices', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, list } = query;
  const change = useAction();

  const act = (invoice: Invoice, action: 'pay' | 'void') => {
    const question =
      action === 'pay'
        ? `Mark ${invoiceName(invoice)} (${formatMoney(invoice.total, invoice.currency)}) paid? It records a manual payment.`
        : `Void ${invoiceName(invoice)}? This cannot be undone.`;
    change.runIfConfirmed(question, async () => {
      await admin.post(path`/workspaces/${workspaceId}/invoices/${invoice.id}/${action}`);
      list.reload();
      return `${capitalized(invoiceName(invoice))} ${action === 'pay' ? 'marked paid' : 'voided'}.`;
    });
  };

  /** A draft is finalised (it takes the next number and is sent) through the workspace API, as an app would. */
  const finalize = (invoice: Invoice) => {
    const question = `Finalise ${invoiceName(invoice)} (${formatMoney(invoice.total, invoice.currency)})? It takes the next number and is sent to its client.`;
    change.runIfConfirmed(question, async () => {
      const open = await v1(workspaceId).post<Invoice>(path`/invoices/${invoice.id}/finalize`);
      list.reload();
      return `${capitalized(invoiceName(invoice))} finalised as invoice ${open.number}.`;
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="invoices">
      <h2 id="invoices">Invoices</h2>
      <FilterForm query={query} label="Invoices" submitLabel="Show" clearLabel={null}>
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              {['', 'draft', 'open', 'paid', 'void'].map((s) => (
                <option key={s} value={s} selected={filters.status === s}>
                  {s || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <Status>{change.done}</Status>
      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No invoice." what="invoices" />
      {rows.length > 0 ? (
        <DataTable caption="Invoices, newest first" columns={['Number', 'Total', 'Status', 'Due', 'Recipient']} actions>
          {rows.map((invoice) => (
            <tr key={invoice.id}>
              <td data-label="Number">{invoice.number ?? 'Draft'}</td>
              <td data-label="Total">{formatMoney(invoice.total, invoice.currency)}</td>
              <td data-label="Status">
                <Badge value={invoice.status} />
              </td>
              <td data-label="Due">{formatDate(invoice.dueDate)}</td>
              <td data-label="Recipient" class="mono small">
                {invoice.clientId ?? invoice.companyId}
              </td>
              <td class="actions">
                {invoice.status === 'open' ? (
                  <RowButton busy={change.busy} onClick={() => act(invoice, 'pay')} label={`Mark paid: ${invoiceName(invoice)}`}>
                    Mark paid
                  </RowButton>
                ) : null}
                {invoice.status === 'draft' ? (
                  <RowButton busy={change.busy} onClick={() => finalize(invoice)} label={`Finalise ${invoiceName(invoice)}`}>
                    Finalise
                  </RowButton>
                ) : null}
                {invoice.status === 'open' || invoice.status === 'draft' ? (
                  <RowButton kind="danger" busy={change.busy} onClick={() => act(invoice, 'void')} label={`Void ${invoiceName(invoice)}`}>
                    Void
                  </RowButton>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Invoices" />
    </section>
  );
}

function Subscriptions({ workspaceId }: { workspaceId: string }) {
  const list = usePaged(
    (nextToken) => ok(v1Api(workspaceId).GET('/v1/subscriptions', { params: { query: { limit: 25, nextToken } } })),
    [workspaceId],
  );
  const change = useAction();

  const cancel = (subscription: Subscription) =>
    change.runIfConfirmed('Cancel this subscription? It bills no further invoice.', async () => {
      await v1(workspaceId).post(path`/subscriptions/${subscription.id}/cancel`);
      list.reload();
      return 'Subscription cancelled.';
    });

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="subscriptions">
      <h2 id="subscriptions">Subscriptions</h2>
      <Status>{change.done}</Status>
      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No subscription." what="subscriptions" />
      {rows.length > 0 ? (
        <DataTable caption="Subscriptions, newest first" columns={['Amount', 'Every', 'Status', 'Next invoice', 'Recipient']} actions>
          {rows.map((subscription) => (
            <tr key={subscription.id}>
              <td data-label="Amount">
                {formatMoney(
                  subscription.lineItems.reduce((sum, line) => sum + line.total, 0),
                  subscription.currency,
                )}
              </td>
              <td data-label="Every">
                {subscription.intervalCount === 1 ? subscription.interval : `${subscription.intervalCount} × ${subscription.interval}`}
              </td>
              <td data-label="Status">
                <Badge value={subscription.status} />
              </td>
              <td data-label="Next invoice">{formatDate(subscription.nextBillingDate)}</td>
              <td data-label="Recipient" class="mono small">
                {subscription.clientId ?? subscription.companyId}
              </td>
              <td class="actions">
                {subscription.status === 'active' || subscription.status === 'notStarted' ? (
                  <RowButton
                    kind="danger"
                    busy={change.busy}
                    onClick={() => cancel(subscription)}
                    label={`Cancel subscription ${subscription.id}`}
                  >
                    Cancel
                  </RowButton>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Subscriptions" />
    </section>
  );
}
