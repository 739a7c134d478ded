// The clients a form or a contract is sent to, for staff: found by a search on the server (`GET /v1/clients?q=`, a
// page at a time: the API answers only the clients the person may see), each client in each of its companies a
// choice (a form response and a contract are asked of a client in one company). Several for a form (checkboxes),
// one for a contract (radio buttons).
import type { Item } from '../../../kit/api.js';
import { FilterForm, ListState, Pager, useListQuery } from '../../../kit/list.js';
import { ApiError, ok, v1 } from '../api.js';
import { useNames } from '../names.js';
import { useSignedIn } from '../signed-in.js';
import { Field } from '../ui.js';

type Client = Item<'/v1/clients'>;

/** A client in one of its companies, and how it reads ("Ada Lovelace, Northwind"). */
export interface Recipient {
  clientId: string;
  companyId: string;
  label: string;
}

const recipientKey = (r: { clientId: string; companyId: string }) => `${r.clientId}/${r.companyId}`;

const fullName = (client: Client) => `${client.givenName} ${client.familyName}`.trim() || client.email;

/** The server's word about any field whose name starts with `prefix` (`clientCompanyIds.0.clientId`…). */
export function problemAt(error: unknown, ...prefixes: string[]): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const name = Object.keys(error.fields).find((field) => prefixes.some((prefix) => field === prefix || field.startsWith(`${prefix}.`)));
  const message = name === undefined ? undefined : error.fields[name];
  return message === undefined ? undefined : `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`;
}

export function RecipientPicker({
  id,
  legend,
  many,
  chosen,
  onChange,
  problem,
}: {
  id: string;
  legend: string;
  /** several (checkboxes) or one (radio buttons) */
  many: boolean;
  chosen: Recipient[];
  onChange: (chosen: Recipient[]) => void;
  /** the server's word about the recipients, shown beside them */
  problem?: string;
}) {
  const { person } = useSignedIn();
  const query = useListQuery(
    { q: '' },
    async (filters, nextToken) => ok(v1.GET('/v1/clients', { params: { query: { q: filters.q || undefined, limit: 10, nextToken } } })),
    [],
  );
  const { list } = query;
  const clients = list.data?.data ?? [];
  const name = useNames(
    person,
    clients.flatMap((client) => client.companyIds.map((companyId) => ['company', companyId] as ['company', string])),
  );
  const choices = clients.flatMap((client) =>
    client.companyIds.map((companyId) => ({
      clientId: client.id,
      companyId,
      label: `${fullName(client)}, ${name('company', companyId) ?? '…'}`,
      email: client.email,
    })),
  );
  const picked = new Set(chosen.map(recipientKey));
  const toggle = (choice: Recipient, on: boolean) => {
    const { clientId, companyId, label } = choice;
    if (!many) return onChange(on ? [{ clientId, companyId, label }] : []);
    onChange(on ? [...chosen, { clientId, companyId, label }] : chosen.filter((r) => recipientKey(r) !== recipientKey(choice)));
  };
  return (
    <div class="recipients">
      <FilterForm query={query} label={`${legend}: search`} submitLabel="Find" clearLabel="Clear the search">
        <Field label="Find a client by name or e-mail">{(props) => <input {...props} name="q" type="search" maxLength={100} />}</Field>
      </FilterForm>
      <fieldset aria-describedby={problem ? `${id}-problem` : undefined}>
        <legend>{legend}</legend>
        <ListState list={list} what="clients" empty={query.filtered ? 'No client matches the search.' : 'No clients yet.'} />
        {choices.length > 0 ? (
          <ul class="choices recipient-choices">
            {choices.map((choice) => (
              <li key={recipientKey(choice)}>
                <label class="choice">
                  <input
                    type={many ? 'checkbox' : 'radio'}
                    name={`${id}-recipient`}
                    value={recipientKey(choice)}
                    checked={picked.has(recipientKey(choice))}
                    onChange={(event) => toggle(choice, event.currentTarget.checked)}
                  />
                  <span>
                    {choice.label} <span class="hint">({choice.email})</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        <Pager list={list} label={legend} />
        {problem ? (
          <small id={`${id}-problem`} class="field-error">
            {problem}
          </small>
        ) : null}
      </fieldset>
      <p aria-live="polite">
        {chosen.length === 0 ? 'No client chosen yet.' : `Chosen: ${chosen.map((recipient) => recipient.label).join('; ')}.`}
      </p>
    </div>
  );
}
