import { useState } from 'preact/hooks';
import { type Page, path, v1 } from '../api.js';
import type { Company } from '../types.js';
import {
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  Status,
  confirmed,
  formatDate,
  latest,
  useAction,
  usePaged,
  focusFirstField,
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

  const submitSearch = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    setSearch({ name: String(data.get('name') ?? '').trim(), kind: String(data.get('kind')) as Kind });
  };

  const submitCreate = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get('name')).trim();
    await create.run(async () => {
      await api.post<Company>('/companies', { name });
      form.reset();
      list.reload();
      return `Company ${name} created.`;
    });
  };

  const submitEdit = async (event: Event, company: Company) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name')).trim();
    const ok = await change.run(async () => {
      if (name !== company.name) await api.patch(path`/companies/${company.id}`, { name });
      list.reload();
      return `Company ${name} saved.`;
    });
    if (ok) setEditing(null);
  };

  const remove = (company: Company) => {
    if (!confirmed(`Delete the company ${company.name}? Its clients without another company move to new placeholder companies.`)) return;
    void change.run(async () => {
      await api.delete(path`/companies/${company.id}`);
      list.reload();
      return `Company ${company.name} deleted.`;
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Companies" context={useWorkspaceName()} />
      <Status message={latest(create, change)} />

      <search aria-label="Companies">
        <form class="search" onSubmit={submitSearch}>
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
          <div class="actions">
            <button type="submit">Search</button>
          </div>
        </form>
      </search>

      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No company matches." what="companies" />
      {rows.length > 0 ? (
        <table class="data">
          <caption class="visually-hidden">Companies</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((company) =>
              editing === company.id ? (
                <tr key={company.id}>
                  <td colSpan={4}>
                    <form
                      class="inline-form"
                      onSubmit={(e) => submitEdit(e, company)}
                      ref={focusFirstField}
                      aria-label={`Rename company ${company.name}`}
                    >
                      <Field label="Name">
                        {(props) => <input {...props} name="name" required maxLength={200} defaultValue={company.name} />}
                      </Field>
                      <div class="actions">
                        <button type="submit" disabled={change.busy}>
                          Save
                        </button>
                        <button type="button" class="secondary" onClick={() => setEditing(null)}>
                          Cancel
                        </button>
                      </div>
                    </form>
                  </td>
                </tr>
              ) : (
                <tr key={company.id}>
                  <td data-label="Name">
                    {company.name}
                    <div class="mono small">{company.id}</div>
                  </td>
                  <td data-label="Kind">{company.isPlaceholder ? 'placeholder' : 'company'}</td>
                  <td data-label="Created">{formatDate(company.createdAt)}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => setEditing(company.id)}
                      aria-label={`Rename company ${company.name}`}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      class="danger"
                      onClick={() => remove(company)}
                      disabled={change.busy}
                      aria-label={`Delete company ${company.name}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      ) : null}
      <Pager list={list} label="Companies" />

      <section class="panel" aria-labelledby="create-company">
        <h2 id="create-company">Add a company</h2>
        <ErrorMessage error={create.error} />
        <form class="inline-form" onSubmit={submitCreate}>
          <Field label="Name" hint="Unique in the workspace (any case).">
            {(props) => <input {...props} name="name" required maxLength={200} />}
          </Field>
          <div class="actions">
            <button type="submit" disabled={create.busy}>
              Add company
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
