import { once, useOnceKey } from '../../../kit/once.js';
import { DataTable, ListState, RowButton } from '../../../kit/list.js';
import { latest, useLoad } from '../../../kit/ui.js';
import { ok, v1 } from '../api.js';
import { ErrorMessage, PageHeading, Status, useAction } from '../ui.js';
import { BillingNav, type Card, CardFields, cardName, cardOf, expired, expiry, formatDay, useIsClient } from './billing-parts.js';

/**
 * The cards on file: the person's own and their companies' (what the API shows a client), each removable, and a form
 * to add one. The API charges the newest card of the party an invoice bills when no card is named (automatic
 * collection): that card is marked. It has no other notion of a default card, so none is offered.
 */
export function CardsPage({ path }: { path: string }) {
  if (!useIsClient()) {
    return (
      <>
        <PageHeading title="Saved cards" />
        <BillingNav path={path} />
        <p>Cards are the clients’ own: each client adds and removes theirs here.</p>
      </>
    );
  }
  return <ClientCards path={path} />;
}

function ClientCards({ path }: { path: string }) {
  const cards = useLoad(() => ok(v1.GET('/v1/payment-methods', { params: { query: { limit: 100 } } })), []);
  const remove = useAction();
  const add = useAction();
  const addKey = useOnceKey();
  const all = cards.data?.data ?? [];
  // Newest first: the first card of each party (the person in a company, or a company) is the one charged automatically.
  const charged = new Set<string>();
  const parties = new Set<string>();
  for (const card of all) {
    const party = `${card.clientId ?? ''}/${card.companyId}`;
    if (!parties.has(party)) charged.add(card.id);
    parties.add(party);
  }

  const removeCard = (card: Card) =>
    remove.runIfConfirmed(`Remove ${cardName(card)}? Payments made with it keep its name.`, async () => {
      await ok(v1.DELETE('/v1/payment-methods/{id}', { params: { path: { id: card.id } } }));
      cards.reload();
      return `${cardName(card)} removed.`;
    });

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void add.run(async () => {
      const body = { card: cardOf(form) };
      const card = await once(addKey, JSON.stringify(body), (key) =>
        ok(v1.POST('/v1/payment-methods', { params: { header: { 'idempotency-key': key } }, body })),
      );
      form.reset();
      cards.reload();
      return `${cardName(card)} saved. As your newest card, it is the one charged automatically.`;
    });
  };

  return (
    <>
      <PageHeading title="Saved cards" />
      <BillingNav path={path} />
      <p>
        Your newest card is the one charged automatically (a subscription’s invoices); you choose the card when you pay an invoice yourself.
      </p>
      <Status>{latest(remove, add)}</Status>
      <ErrorMessage focus error={remove.error} />
      <ListState list={cards} empty="No saved cards." what="saved cards" />
      {all.length > 0 ? (
        <DataTable caption="Saved cards, newest first" columns={['Card', 'Expires', 'Added']} actions>
          {all.map((card) => (
            <tr key={card.id}>
              <td data-label="Card">
                {cardName(card)}
                {card.clientId ? null : <span class="muted"> (your company’s)</span>}
                {charged.has(card.id) ? (
                  <>
                    {' '}
                    <span class="badge badge-active charged">Charged automatically</span>
                  </>
                ) : null}
              </td>
              <td data-label="Expires">
                {expiry(card)}
                {expired(card) ? <strong class="overdue"> expired</strong> : null}
              </td>
              <td data-label="Added">{formatDay(card.createdAt)}</td>
              <td class="actions">
                <RowButton
                  kind="danger"
                  busy={remove.busy}
                  onClick={() => removeCard(card)}
                  label={`Remove ${cardName(card)}, expires ${expiry(card)}`}
                >
                  Remove
                </RowButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <section aria-labelledby="add-card" class="panel">
        <h2 id="add-card">Add a card</h2>
        <form class="stack" onSubmit={submit}>
          <CardFields error={add.error} />
          <ErrorMessage focus error={add.error} />
          <div class="actions">
            <button type="submit" disabled={add.busy}>
              {add.busy ? 'Saving…' : 'Save the card'}
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
