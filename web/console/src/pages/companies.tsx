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
  Status,
  formatDate,
  latest,
  useAction,
  FilterForm,
  useListQuery,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** Which companies the list shows: GET /v1/companies?isPlaceholder=… (none for both). */
const IS_PLACEHOLDER: Record<string, boolean | undefined> = { real: false, placeholder: true, all: undefined };

export function CompaniesPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  const query = useListQuery(
    { name: '', kind: 'real' },
    (filters, nextToken) =>
      api.get<Page<Company>>('/companies', { limit: 25, nextToken, name: filters.name, isPlaceholder: IS_PLACEHOLDER[filters.kind] }),
    [workspaceId],
  );
  const { filters: search, list } = query;
  const [editing, setEditing] = useState<string | null>(null);
  const create = useAction();
  const change = useAction();

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

      <FilterForm query={query} label="Companies" submitLabel="Search" clearLabel={null}>
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
      </FilterForm>

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
