// The staff's Companies section (/companies, /companies/<id>): the companies the signed-in internal user may see (an
// admin every one, a limited member of staff its own), newest first, paged and searched by the server (`q`); a new
// company (an Idempotency-Key per create); a company's page (company.tsx). A client signed in finds no such page.
import type { Item } from '../../../kit/api.js';
import { CreatePanel, DataTable, FilterForm, ListState, Pager, useListQuery } from '../../../kit/list.js';
import { newKey } from '../../../kit/once.js';
import { match } from '../../../kit/router.js';
import { ok, v1 } from '../api.js';
import { NotFoundPage } from '../pages/not-found.js';
import { Link } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { Field, PageHeading, Status, useAction } from '../ui.js';
import { CompanyPage, createdOn } from './company.js';

type Company = Item<'/v1/companies'>;

export function CompaniesPage({ path }: { path: string }) {
  const { staff } = useSignedIn();
  if (!staff) return <NotFoundPage />;
  const one = match('/companies/:id', path);
  if (one) return <CompanyPage id={one.id} />;
  if (path !== '/companies') return <NotFoundPage />;
  return <CompanyList />;
}

/** Every non-empty filter as a query parameter (an empty `q` filters nothing, and is not sent). */
const given = (value: string) => value || undefined;

function CompanyList() {
  const query = useListQuery(
    { q: '' },
    async (filters, nextToken) => ok(v1.GET('/v1/companies', { params: { query: { q: given(filters.q), nextToken } } })),
    [],
  );
  const { list } = query;
  const rows: Company[] = list.data?.data ?? [];
  const create = useAction();
  return (
    <>
      <PageHeading title="Companies" />
      <FilterForm query={query} label="Companies" submitLabel="Search" clearLabel="Clear the search">
        <Field label="Search by name">{(props) => <input {...props} name="q" type="search" maxLength={100} />}</Field>
      </FilterForm>
      <ListState list={list} what="companies" empty={query.filtered ? 'No company matches the search.' : 'No companies yet.'} />
      {rows.length > 0 ? (
        <DataTable caption="Companies, newest first" columns={['Name', 'Added']}>
          {rows.map((company) => (
            <tr key={company.id}>
              <td>
                <Link href={`/companies/${company.id}`}>{company.name}</Link>
                {company.isPlaceholder ? (
                  <>
                    {' '}
                    <span class="badge badge-placeholder">Placeholder</span>
                  </>
                ) : null}
              </td>
              <td>{createdOn(company.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Companies" />
      <Status>{create.done}</Status>
      <CreatePanel
        id="new-company"
        title="New company"
        submitLabel={create.busy ? 'Saving…' : 'Add the company'}
        action={create}
        create={async (data) => {
          const company = await ok(
            v1.POST('/v1/companies', {
              params: { header: { 'idempotency-key': newKey() } },
              body: { name: String(data.get('name') ?? '').trim() },
            }),
          );
          list.first();
          list.reload();
          return `${company.name} was added.`;
        }}
      >
        <Field label="Name" name="name" error={create.error}>
          {(props) => <input {...props} required maxLength={200} autocomplete="off" />}
        </Field>
      </CreatePanel>
    </>
  );
}
