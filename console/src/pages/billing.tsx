import { useState } from 'preact/hooks';
import { admin, type Page, path, v1 } from '../api.js';
import type { Invoice, Subscription } from '../types.js';
import {
  Badge,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  Status,
  confirmed,
  formatDate,
  formatMoney,
  useAction,
  usePaged,
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

function Invoices({ workspaceId }: { workspaceId: string }) {
  const [status, setStatus] = useState('');
  const list = usePaged(
    (nextToken) => v1(workspaceId).get<Page<Invoice>>('/invoices', { limit: 25, nextToken, status }),
    [workspaceId, status],
  );
  const change = useAction();

  const act = (invoice: Invoice, action: 'pay' | 'void') => {
    const question =
      action === 'pay'
        ? `Mark invoice ${invoice.number} (${formatMoney(invoice.total, invoice.currency)}) paid? It records a manual payment.`
        : `Void invoice ${invoice.number}? This cannot be undone.`;
    if (!confirmed(question)) return;
    void change.run(async () => {
      await admin.post(path`/workspaces/${workspaceId}/invoices/${invoice.id}/${action}`);
      list.reload();
      return `Invoice ${invoice.number} ${action === 'pay' ? 'marked paid' : 'voided'}.`;
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="invoices">
      <h2 id="invoices">Invoices</h2>
      <search aria-label="Invoices">
        <form
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            setStatus(String(new FormData(e.currentTarget).get('status') ?? ''));
          }}
        >
          <Field label="Status">
            {(props) => (
              <select {...props} name="status">
                {['', 'draft', 'open', 'paid', 'void'].map((s) => (
                  <option key={s} value={s} selected={status === s}>
                    {s || 'Any'}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="actions">
            <button type="submit">Show</button>
          </div>
        </form>
      </search>
      <Status message={change.done} />
      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No invoice." what="invoices" />
      {rows.length > 0 ? (
        <table class="data">
          <caption class="visually-hidden">Invoices, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Total</th>
              <th scope="col">Status</th>
              <th scope="col">Due</th>
              <th scope="col">Recipient</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((invoice) => (
              <tr key={invoice.id}>
                <td data-label="Number">{invoice.number}</td>
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
                    <button
                      type="button"
                      disabled={change.busy}
                      onClick={() => act(invoice, 'pay')}
                      aria-label={`Mark paid: invoice ${invoice.number}`}
                    >
                      Mark paid
                    </button>
                  ) : null}
                  {invoice.status === 'open' || invoice.status === 'draft' ? (
                    <button
                      type="button"
                      class="danger"
                      disabled={change.busy}
                      onClick={() => act(invoice, 'void')}
                      aria-label={`Void invoice ${invoice.number}`}
                    >
                      Void
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager list={list} label="Invoices" />
    </section>
  );
}

function Subscriptions({ workspaceId }: { workspaceId: string }) {
  const list = usePaged((nextToken) => v1(workspaceId).get<Page<Subscription>>('/subscriptions', { limit: 25, nextToken }), [workspaceId]);
  const change = useAction();

  const cancel = (subscription: Subscription) => {
    if (!confirmed('Cancel this subscription? It bills no further invoice.')) return;
    void change.run(async () => {
      await v1(workspaceId).post(path`/subscriptions/${subscription.id}/cancel`);
      list.reload();
      return 'Subscription cancelled.';
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="subscriptions">
      <h2 id="subscriptions">Subscriptions</h2>
      <Status message={change.done} />
      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No subscription." what="subscriptions" />
      {rows.length > 0 ? (
        <table class="data">
          <caption class="visually-hidden">Subscriptions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Amount</th>
              <th scope="col">Every</th>
              <th scope="col">Status</th>
              <th scope="col">Next invoice</th>
              <th scope="col">Recipient</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
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
                    <button
                      type="button"
                      class="danger"
                      disabled={change.busy}
                      onClick={() => cancel(subscription)}
                      aria-label={`Cancel subscription ${subscription.id}`}
                    >
                      Cancel
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager list={list} label="Subscriptions" />
    </section>
  );
}
