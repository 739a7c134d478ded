// The staff inbox's "New conversation" (pages/messages.tsx shows it to internal users only): a conversation with a
// client, a group of clients of one company, or a company as a whole (POST /v1/message-channels, membershipType
// individual, group or company), the people and companies found by the server's search (GET /v1/clients?q=,
// GET /v1/companies?q=: a limited member of staff finds only its companies'), then the new conversation's thread.
import { useId, useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { useLoad } from '../../../kit/ui.js';
import { ok, v1 } from '../api.js';
import { useNames } from '../names.js';
import { navigate } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { ErrorMessage, Field, useAction } from '../ui.js';

type Client = Item<'/v1/clients'>;
type Kind = 'individual' | 'group' | 'company';

/** What a search shows at most: a word more narrows it. */
const FOUND = 20;
/** The most clients a group takes (the API's MAX_GROUP_MEMBERS). */
const GROUP_MAX = 100;

const KINDS: [Kind, string][] = [
  ['individual', 'A client'],
  ['group', 'A group of clients'],
  ['company', 'A company'],
];

const clientName = (c: Pick<Client, 'givenName' | 'familyName' | 'email'>) => `${c.givenName} ${c.familyName}`.trim() || c.email;

/** The companies every chosen client is in: a group's clients must share one (the API's rule). */
function sharedCompanies(clients: Client[]): string[] {
  const [first, ...rest] = clients;
  if (!first) return [];
  return first.companyIds.filter((id) => rest.every((c) => c.companyIds.includes(id)));
}

export function NewConversation() {
  const { person } = useSignedIn();
  const id = useId();
  const [kind, setKind] = useState<Kind>('individual');
  const [q, setQ] = useState('');
  // The clients chosen (one for a client's conversation, several for a group), kept across searches.
  const [chosen, setChosen] = useState<Client[]>([]);
  const [company, setCompany] = useState<{ id: string; name: string } | null>(null);
  const [inCompany, setInCompany] = useState('');
  const action = useAction();
  const key = useOnceKey();
  const term = q.trim();
  const found = useLoad(async () => {
    const query = { limit: FOUND, ...(term ? { q: term } : {}) };
    if (kind === 'company') return { companies: (await ok(v1.GET('/v1/companies', { params: { query } }))).data, clients: [] };
    return { clients: (await ok(v1.GET('/v1/clients', { params: { query } }))).data, companies: [] };
  }, [kind, term]);

  // A client (or a group) in several companies: which one the conversation belongs to.
  const companies = kind === 'company' ? [] : sharedCompanies(chosen);
  const name = useNames(
    person,
    companies.map((c) => ['company', c] as ['company', string]),
  );
  const choosing = companies.length > 1;

  const switchKind = (next: Kind) => {
    setKind(next);
    setChosen((known) => (next === 'group' ? known : known.slice(0, 1)));
    setInCompany('');
  };
  const toggle = (client: Client, on: boolean) => {
    setInCompany('');
    if (kind === 'individual') setChosen(on ? [client] : []);
    else setChosen((known) => (on ? [...known.filter((c) => c.id !== client.id), client] : known.filter((c) => c.id !== client.id)));
  };

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const companyId = choosing && inCompany ? { companyId: inCompany } : {};
      const body =
        kind === 'company'
          ? { membershipType: kind, companyId: company?.id ?? '' }
          : kind === 'individual'
            ? { membershipType: kind, clientId: chosen[0]?.id ?? '', ...companyId }
            : { membershipType: kind, memberIds: chosen.map((c) => c.id), ...companyId };
      if ((kind === 'company' && !company) || (kind !== 'company' && chosen.length === 0))
        throw new Error(kind === 'company' ? 'Choose a company first.' : 'Choose a client first.');
      const channel = await once(key, JSON.stringify(body), (k) =>
        ok(v1.POST('/v1/message-channels', { params: { header: { 'idempotency-key': k } }, body })),
      );
      navigate(`/messages/${encodeURIComponent(channel.id)}`);
    });
  };

  // The choices shown: those chosen first (so that a new search does not hide them), then what the search found.
  const clients = [...chosen, ...(found.data?.clients ?? []).filter((c) => !chosen.some((k) => k.id === c.id))];
  const companyChoices = [...(company ? [company] : []), ...(found.data?.companies ?? []).filter((c) => c.id !== company?.id)];
  const what = kind === 'company' ? 'companies' : 'clients';
  const nothing = found.data && (kind === 'company' ? companyChoices.length === 0 : clients.length === 0);
  return (
    <section class="panel new-conversation" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New conversation</h2>
      <form class="stack" onSubmit={submit}>
        <ErrorMessage focus error={action.error} />
        <fieldset class="choices">
          <legend>With</legend>
          {KINDS.map(([value, label]) => (
            <label class="choice" key={value}>
              <input type="radio" name="membershipType" value={value} checked={kind === value} onChange={() => switchKind(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        <Field label={kind === 'company' ? 'Find a company' : 'Find clients'} hint="A word of the name or the e-mail address">
          {(props) => (
            <input
              {...props}
              type="search"
              value={q}
              maxLength={100}
              autoComplete="off"
              onInput={(event) => setQ(event.currentTarget.value)}
            />
          )}
        </Field>
        {found.loading ? <p role="status">Looking for {what}…</p> : null}
        {found.error ? <ErrorMessage error={found.error} /> : null}
        <fieldset class="found">
          <legend>{kind === 'company' ? 'Company' : kind === 'group' ? `Clients (up to ${GROUP_MAX}, of one company)` : 'Client'}</legend>
          {nothing ? <p class="empty">No {kind === 'company' ? 'company' : 'client'} matches.</p> : null}
          <ul class="choices found-list">
            {kind === 'company'
              ? companyChoices.map((c) => (
                  <li key={c.id}>
                    <label class="check">
                      <input
                        type="radio"
                        name="companyId"
                        value={c.id}
                        checked={company?.id === c.id}
                        onChange={() => setCompany({ id: c.id, name: c.name })}
                      />{' '}
                      {c.name}
                    </label>
                  </li>
                ))
              : clients.map((c) => (
                  <li key={c.id}>
                    <label class="check">
                      <input
                        type={kind === 'group' ? 'checkbox' : 'radio'}
                        name={kind === 'group' ? 'memberIds' : 'clientId'}
                        value={c.id}
                        checked={chosen.some((k) => k.id === c.id)}
                        onChange={(event) => toggle(c, event.currentTarget.checked)}
                      />{' '}
                      <span>
                        <span class="found-name">{clientName(c)}</span> <span class="muted">{c.email}</span>
                      </span>
                    </label>
                  </li>
                ))}
          </ul>
          {kind === 'group' ? (
            <p class="muted">
              {chosen.length === 0 ? 'No client chosen yet.' : `${chosen.length} client${chosen.length === 1 ? '' : 's'} chosen.`}
            </p>
          ) : null}
        </fieldset>
        {choosing ? (
          <Field label="In which company" name="companyId" error={action.error}>
            {(props) => (
              <select {...props} required value={inCompany} onChange={(event) => setInCompany(event.currentTarget.value)}>
                <option value="">Choose one</option>
                {companies.map((c) => (
                  <option key={c} value={c}>
                    {name('company', c) ?? '…'}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Starting…' : 'Start the conversation'}
          </button>
        </div>
      </form>
    </section>
  );
}
