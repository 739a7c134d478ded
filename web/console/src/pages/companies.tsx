import { useState } from 'preact/hooks';
import { type Page, path, v1 } from '../api.js';
import type { Company } from '../types.js';
import {
  CreatePanel,
  DataTable,
  EditRow,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  RowButton,
  SearchForm,
  Status,
  formatDate,
  latest,
  useAction,
  usePaged,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

type Kind = 'all' | 'real' | 'placeholder';

export function CompaniesPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  const [search, setSearch] = useState<{ name: string; kind: Kind }>({ name: '', kind: 'real' });
  const list = usePaged(
    (nextToken) =>
      api.get<Page<Company>>('/companies', {
        limit: 25,
        nextToken,
        name: search.name,
        isPlaceholder: search.kind === 'all' ? undefined : search.kind === 'placeholder',
      }),
    [workspaceId, search.name, search.kind],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const create = useAction();
  const change = useAction();

  const submitSearch = (data: FormData) =>
    setSearch({ name: String(data.get('name') ?? '').trim(), kind: String(data.get('kind')) as Kind });

  const createCompany = async (data: FormData) => {
    const name = String(data.get('name')).trim();
    await api.post<Company>('/companies', { name });
    list.reload();
    return `Company ${name} created.`;
  };

  const rename = async (company: Company, data: FormData) => {
    const name = String(data.get('name')).trim();
    if (name !== company.name) await api.patch(path`/companies/${company.id}`, { name });
    list.reload();
    return `Company ${name} saved.`;
  };

  const remove = (company: Company) =>
    change.runIfConfirmed(
      `Delete the company ${company.name}? Its clients without another company move to new placeholder companies.`,
      async () => {
        await api.delete(path`/companies/${company.id}`);
        list.reload();
        return `Company ${company.name} deleted.`;
      },
    );

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Companies" context={useWorkspaceName()} />
      <Status>{latest(create, change)}</Status>

      <SearchForm label="Companies" submitLabel="Search" onSearch={submitSearch}>
        <Field label="Name" hint="The exact name, capitals included; empty for every company.">
          {(props) => <input {...props} name="name" type="search" defaultValue={search.name} />}
        </Field>
        <Field label="Show">
          {(props) => (
            <select {...props} name="kind">
              <option value="real" selected={search.kind === 'real'}>
                Companies
              </option>
              <option value="placeholder" selected={search.kind === 'placeholder'}>
                Placeholder companies
              </option>
              <option value="all" selected={search.kind === 'all'}>
                Both
              </option>
            </select>
          )}
        </Field>
      </SearchForm>

      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No company matches." what="companies" />
      {rows.length > 0 ? (
        <DataTable caption="Companies" columns={['Name', 'Kind', 'Created']} actions>
          {rows.map((company) =>
            editing === company.id ? (
              <EditRow
                key={company.id}
                columns={4}
                label={`Rename company ${company.name}`}
                action={change}
                save={(data) => rename(company, data)}
                close={() => setEditing(null)}
              >
                <Field label="Name">
                  {(props) => <input {...props} name="name" required maxLength={200} defaultValue={company.name} />}
                </Field>
              </EditRow>
            ) : (
              <tr key={company.id}>
                <td data-label="Name">
                  {company.name}
                  <div class="mono small">{company.id}</div>
                </td>
                <td data-label="Kind">{company.isPlaceholder ? 'placeholder' : 'company'}</td>
                <td data-label="Created">{formatDate(company.createdAt)}</td>
                <td class="actions">
                  <RowButton kind="secondary" onClick={() => setEditing(company.id)} label={`Rename company ${company.name}`}>
                    Rename
                  </RowButton>
                  <RowButton kind="danger" onClick={() => remove(company)} busy={change.busy} label={`Delete company ${company.name}`}>
                    Delete
                  </RowButton>
                </td>
              </tr>
            ),
          )}
        </DataTable>
      ) : null}
      <Pager list={list} label="Companies" />

      <CreatePanel id="create-company" title="Add a company" submitLabel="Add company" action={create} create={createCompany}>
        <Field label="Name" hint="Unique in the workspace (any case).">
          {(props) => <input {...props} name="name" required maxLength={200} />}
        </Field>
      </CreatePanel>
    </>
  );
}
