// A company's page for staff (/companies/<id>): its name edited in place (the server's word beside it: a name taken
// is a 409), its clients (`GET /v1/clients?companyId=`, paged), its custom fields and its notes. A company the
// signed-in internal user may not see is not found.
import type { Answer } from '../../../kit/api.js';
import { DataTable, ListState, Pager, usePaged } from '../../../kit/list.js';
import { useLoad } from '../../../kit/ui.js';
import { ApiError, ok, v1 } from '../api.js';
import { Link } from '../router.js';
import { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Status, Submit, useAction } from '../ui.js';
import { STATUS_WORDS } from './clients.js';
import { CustomFieldsPanel } from './custom-fields.js';
import { NotesPanel } from './notes.js';

type Company = Answer<'/v1/companies/{id}'>;

export const createdOn = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

export function CompanyPage({ id }: { id: string }) {
  const company = useLoad(() => ok(v1.GET('/v1/companies/{id}', { params: { path: { id } } })), [id]);
  if (company.error instanceof ApiError && company.error.status === 404) {
    return (
      <>
        <PageHeading title="Company not found" />
        <p>
          No company you may see has this address. <Link href="/companies">Back to the companies</Link>.
        </p>
      </>
    );
  }
  if (company.error) {
    return (
      <>
        <PageHeading title="Company" />
        <LoadFailed error={company.error} retry={company.reload} codes />
      </>
    );
  }
  if (!company.data) return <Loading>Loading the company…</Loading>;
  return <CompanyDetails company={company.data} reloaded={company.reloaded} />;
}

function CompanyDetails({ company, reloaded }: { company: Company; reloaded: () => Promise<void> }) {
  const edit = useAction();
  const rename = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    void edit.run(async () => {
      const saved = await ok(
        v1.PATCH('/v1/companies/{id}', { params: { path: { id: company.id } }, body: { name: String(data.get('name') ?? '').trim() } }),
      );
      await reloaded();
      return `The company is now named ${saved.name}.`;
    });
  };
  return (
    <>
      <PageHeading title={company.name} context="Companies" />
      <p>
        <Link href="/companies">All companies</Link>
      </p>
      <dl class="facts">
        <dt>Added</dt>
        <dd>{createdOn(company.createdAt)}</dd>
        {company.isPlaceholder ? (
          <>
            <dt>Kind</dt>
            <dd>
              <span class="badge badge-placeholder">Placeholder</span> (made for a client added without a company)
            </dd>
          </>
        ) : null}
      </dl>
      <Status>{edit.done}</Status>
      <section class="panel" aria-labelledby="company-name">
        <h2 id="company-name">Name</h2>
        <ErrorMessage error={edit.error} focus codes />
        <form class="inline-form" onSubmit={rename} key={company.updatedAt}>
          <Field label="Company name" name="name" error={edit.error}>
            {(props) => <input {...props} defaultValue={company.name} required maxLength={200} autocomplete="off" />}
          </Field>
          <Submit label={edit.busy ? 'Saving…' : 'Save the name'} busy={edit.busy} />
        </form>
      </section>
      <CompanyClients companyId={company.id} />
      <CustomFieldsPanel
        entityType="company"
        values={company.customFields}
        version={company.updatedAt}
        save={async (customFields) => {
          await ok(v1.PATCH('/v1/companies/{id}', { params: { path: { id: company.id } }, body: { customFields } }));
          await reloaded();
        }}
      />
      <NotesPanel entityType="company" entityId={company.id} />
    </>
  );
}

function CompanyClients({ companyId }: { companyId: string }) {
  const list = usePaged(
    async (nextToken) => ok(v1.GET('/v1/clients', { params: { query: { companyId, nextToken, limit: 20 } } })),
    [companyId],
  );
  const rows = list.data?.data ?? [];
  return (
    <section class="panel" aria-labelledby="company-clients">
      <h2 id="company-clients">Clients</h2>
      <ListState list={list} what="the clients" empty="No clients in this company." />
      {rows.length > 0 ? (
        <DataTable caption="The company's clients, newest first" columns={['Name', 'E-mail', 'Status']}>
          {rows.map((client) => (
            <tr key={client.id}>
              <td>
                <Link href={`/clients/${client.id}`}>{`${client.givenName} ${client.familyName}`.trim() || client.email}</Link>
              </td>
              <td>{client.email}</td>
              <td>
                <span class={`badge badge-${client.status}`}>{STATUS_WORDS[client.status]}</span>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Company clients" />
    </section>
  );
}
