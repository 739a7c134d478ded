import { useState } from 'preact/hooks';
import { ok, type Page, path, v1, v1Api } from '../api.js';
import type { Client, Company } from '../types.js';
import {
  Badge,
  CreatePanel,
  DataTable,
  EditRow,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  RowButton,
  SecretOnce,
  Status,
  formatDate,
  latest,
  useAction,
  useLoad,
  FilterForm,
  useListQuery,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The list filters of GET /v1/clients (exact matches; email case-insensitively). */
const SEARCH_FIELDS = [
  ['email', 'Email'],
  ['givenName', 'Given name'],
  ['familyName', 'Family name'],
  ['companyId', 'Company id'],
] as const;

export function ClientsPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  // One filter at a time: the field chosen (`field`), the value sought (`q`); none without a value.
  const query = useListQuery(
    { field: 'email', q: '' },
    (filters, nextToken) =>
      api.get<Page<Client>>('/clients', { limit: 25, nextToken, ...(filters.q ? { [filters.field]: filters.q } : {}) }),
    [workspaceId],
  );
  const { list } = query;
  const search = query.filters.q ? query.filters : null;
  const companies = useLoad(() => api.get<Page<Company>>('/companies', { limit: 1000 }), [workspaceId]);
  const [editing, setEditing] = useState<string | null>(null);
  const [invite, setInvite] = useState<string | null>(null);
  const create = useAction();
  const change = useAction();

  const names = new Map((companies.data?.data ?? []).map((c) => [c.id, c]));
  const realCompanies = (companies.data?.data ?? []).filter((c) => !c.isPlaceholder);
  const companyName = (id: string) => {
    const company = names.get(id);
    if (!company) return id;
    return company.isPlaceholder ? `${company.name} (placeholder)` : company.name;
  };

  const createClient = async (data: FormData) => {
    const companyId = String(data.get('companyId') ?? '');
    const sendInvite = data.get('sendInvite') === 'on';
    const body = {
      email: String(data.get('email')).trim(),
      givenName: String(data.get('givenName')).trim(),
      familyName: String(data.get('familyName')).trim(),
      ...(companyId ? { companyId } : {}),
    };
    const client = await ok(v1Api(workspaceId).POST('/v1/clients', { body, params: { query: sendInvite ? { sendInvite: true } : {} } }));
    setInvite(client.inviteUrl ?? null);
    list.reload();
    companies.reload();
    return `Client ${client.givenName} ${client.familyName} (${client.email}) created.`;
  };

  const saveClient = async (client: Client, data: FormData) => {
    const givenName = String(data.get('givenName')).trim();
    const familyName = String(data.get('familyName')).trim();
    const companyId = String(data.get('companyId') ?? '');
    await api.patch(path`/clients/${client.id}`, {
      ...(givenName !== client.givenName ? { givenName } : {}),
      ...(familyName !== client.familyName ? { familyName } : {}),
      ...(companyId && companyId !== client.companyId ? { companyId } : {}),
    });
    list.reload();
    return `Client ${givenName} ${familyName} saved.`;
  };

  const remove = (client: Client) =>
    change.runIfConfirmed(`Delete the client ${client.givenName} ${client.familyName} (${client.email}) for good?`, async () => {
      await api.delete(path`/clients/${client.id}`);
      list.reload();
      return `Client ${client.email} deleted.`;
    });

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Clients" context={useWorkspaceName()} />
      <Status>{latest(create, change)}</Status>
      {invite ? <SecretOnce title="Invite link (one-time)" value={invite} onDone={() => setInvite(null)} /> : null}

      <FilterForm query={query} label="Clients" submitLabel="Search" clearLabel={search ? 'Show all' : null}>
        <Field label="Search by">
          {(props) => (
            <select {...props} name="field">
              {SEARCH_FIELDS.map(([value, label]) => (
                <option key={value} value={value} selected={value === (search?.field ?? 'email')}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Value" hint="Exact match (email: any case).">
          {(props) => <input {...props} name="q" type="search" defaultValue={search?.q ?? ''} />}
        </Field>
      </FilterForm>

      <ErrorMessage error={change.error} />
      <ListState list={list} empty={search ? 'No client matches.' : 'No client yet.'} what="clients" />
      {rows.length > 0 ? (
        <DataTable caption={search ? 'Clients found' : 'Clients'} columns={['Name', 'Email', 'Company', 'Status', 'Created']} actions>
          {rows.map((client) =>
            editing === client.id ? (
              <EditRow
                key={client.id}
                columns={6}
                label={`Edit client ${client.email}`}
                action={change}
                save={(data) => saveClient(client, data)}
                close={() => setEditing(null)}
              >
                <Field label="Given name">
                  {(props) => <input {...props} name="givenName" required maxLength={200} defaultValue={client.givenName} />}
                </Field>
                <Field label="Family name">
                  {(props) => <input {...props} name="familyName" required maxLength={200} defaultValue={client.familyName} />}
                </Field>
                <Field label="Company">
                  {(props) => (
                    <select {...props} name="companyId">
                      <option value={client.companyId}>{companyName(client.companyId)}</option>
                      {realCompanies
                        .filter((c) => c.id !== client.companyId)
                        .map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.name}
                          </option>
                        ))}
                    </select>
                  )}
                </Field>
              </EditRow>
            ) : (
              <tr key={client.id}>
                <td data-label="Name">
                  {client.givenName} {client.familyName}
                </td>
                <td data-label="Email" class="break">
                  {client.email}
                </td>
                <td data-label="Company">{companyName(client.companyId)}</td>
                <td data-label="Status">
                  <Badge value={client.status} />
                </td>
                <td data-label="Created">{formatDate(client.createdAt)}</td>
                <td class="actions">
                  <RowButton kind="secondary" onClick={() => setEditing(client.id)} label={`Edit client ${client.email}`}>
                    Edit
                  </RowButton>
                  <RowButton kind="danger" onClick={() => remove(client)} busy={change.busy} label={`Delete client ${client.email}`}>
                    Delete
                  </RowButton>
                </td>
              </tr>
            ),
          )}
        </DataTable>
      ) : null}
      <Pager list={list} label="Clients" />

      <CreatePanel id="create-client" title="Add a client" submitLabel="Add client" action={create} create={createClient}>
        <Field label="Email">{(props) => <input {...props} name="email" type="email" required autocomplete="off" maxLength={320} />}</Field>
        <Field label="Given name">{(props) => <input {...props} name="givenName" required maxLength={200} />}</Field>
        <Field label="Family name">{(props) => <input {...props} name="familyName" required maxLength={200} />}</Field>
        <Field label="Company">
          {(props) => (
            <select {...props} name="companyId">
              <option value="">A new placeholder company</option>
              {realCompanies.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <label class="choice">
          <input type="checkbox" name="sendInvite" />
          Send an invite
        </label>
      </CreatePanel>
    </>
  );
}
