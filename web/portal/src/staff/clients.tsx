// The staff's Clients section (/clients, /clients/<id>): the clients the signed-in internal user may see (an admin
// every company's, a limited member of staff its companies'), paged and searched by the server (`q`); a new client
// in a company found by search; a client's page (client.tsx). A client signed in finds no such page.
import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { CreatePanel, DataTable, FilterForm, ListState, Pager, useListQuery, FindInput } from '../../../kit/list.js';
import { newKey } from '../../../kit/once.js';
import { match } from '../../../kit/router.js';
import { ok, v1 } from '../api.js';
import { useNames } from '../names.js';
import { NotFoundPage } from '../pages/not-found.js';
import { Link } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { Field, PageHeading, Status, useAction } from '../ui.js';
import { ClientPage } from './client.js';

type Client = Item<'/v1/clients'>;
type Company = Item<'/v1/companies'>;

export const STATUS_WORDS: Record<Client['status'], string> = {
  notInvited: 'Not invited',
  invited: 'Invited',
  active: 'Active',
  unknown: 'Unknown',
  deleted: 'Deleted',
};

export function ClientsPage({ path }: { path: string }) {
  const { staff } = useSignedIn();
  if (!staff) return <NotFoundPage />;
  const one = match('/clients/:id', path);
  if (one) return <ClientPage id={one.id} />;
  if (path !== '/clients') return <NotFoundPage />;
  return <ClientList />;
}

/** Every non-empty filter as a query parameter (an empty `q` filters nothing, and is not sent). */
const given = (value: string) => value || undefined;

function ClientList() {
  const { person } = useSignedIn();
  const query = useListQuery(
    { q: '' },
    async (filters, nextToken) => ok(v1.GET('/v1/clients', { params: { query: { q: given(filters.q), nextToken } } })),
    [],
  );
  const { list } = query;
  const rows = list.data?.data ?? [];
  const name = useNames(
    person,
    rows.flatMap((client) => client.companyIds.map((id) => ['company', id] as ['company', string])),
  );
  const create = useAction();
  return (
    <>
      <PageHeading title="Clients" />
      <FilterForm query={query} label="Clients" submitLabel="Search" clearLabel="Clear the search">
        <Field label="Search by name or e-mail">{(props) => <input {...props} name="q" type="search" maxLength={100} />}</Field>
      </FilterForm>
      <ListState list={list} what="clients" empty={query.filtered ? 'No client matches the search.' : 'No clients yet.'} />
      {rows.length > 0 ? (
        <DataTable caption="Clients, newest first" columns={['Name', 'E-mail', 'Status', 'Companies']}>
          {rows.map((client) => (
            <tr key={client.id}>
              <td>
                <Link href={`/clients/${client.id}`}>{`${client.givenName} ${client.familyName}`.trim() || client.email}</Link>
              </td>
              <td>{client.email}</td>
              <td>
                <span class={`badge badge-${client.status}`}>{STATUS_WORDS[client.status]}</span>
              </td>
              <td>{client.companyIds.map((id) => name('company', id) ?? '…').join(', ')}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Clients" />
      <Status>{create.done}</Status>
      <NewClient
        action={create}
        created={() => {
          list.first();
          list.reload();
        }}
      />
    </>
  );
}

/** New client: its names, e-mail address and company (found by a search of the companies the person sees). */
function NewClient({ action, created }: { action: ReturnType<typeof useAction>; created: () => void }) {
  const [companyQ, setCompanyQ] = useState('');
  const [companies, setCompanies] = useState<Company[] | null>(null);
  const [found, setFound] = useState<unknown>(null);
  const findCompanies = async () => {
    setFound(null);
    try {
      setCompanies((await ok(v1.GET('/v1/companies', { params: { query: { q: given(companyQ.trim()) } } }))).data);
    } catch (error) {
      setFound(error);
    }
  };
  return (
    <CreatePanel
      id="new-client"
      title="New client"
      submitLabel={action.busy ? 'Saving…' : 'Add the client'}
      action={action}
      create={async (data) => {
        const body = {
          givenName: String(data.get('givenName') ?? '').trim(),
          familyName: String(data.get('familyName') ?? '').trim(),
          email: String(data.get('email') ?? '').trim(),
          ...(data.get('companyId') ? { companyId: String(data.get('companyId')) } : {}),
        };
        const client = await ok(v1.POST('/v1/clients', { params: { header: { 'idempotency-key': newKey() } }, body }));
        created();
        return `${client.givenName} ${client.familyName} was added.`;
      }}
    >
      <Field label="Given name" name="givenName" error={action.error}>
        {(props) => <input {...props} required maxLength={100} autocomplete="off" />}
      </Field>
      <Field label="Family name" name="familyName" error={action.error}>
        {(props) => <input {...props} maxLength={100} autocomplete="off" />}
      </Field>
      <Field label="E-mail address" name="email" error={action.error}>
        {(props) => <input {...props} type="email" required autocomplete="off" />}
      </Field>
      <Field label="Find a company" hint="A word of its name, then Find">
        {(props) => <FindInput props={props} value={companyQ} onValue={setCompanyQ} onFind={() => void findCompanies()} />}
      </Field>
      {found ? <p role="alert">The companies could not be read: try Find again.</p> : null}
      <Field label="Company" name="companyId" error={action.error}>
        {(props) => (
          <select {...props}>
            <option value="">A new company named after the client</option>
            {(companies ?? []).map((company) => (
              <option key={company.id} value={company.id}>
                {company.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </CreatePanel>
  );
}
