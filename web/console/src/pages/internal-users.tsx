import { admin, type Page, path, v1, ok, v1Api } from '../api.js';
import type { Company, InternalUser } from '../types.js';
import {
  CreatePanel,
  DataTable,
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
  useLoad,
  usePaged,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

export function InternalUsersPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  const list = usePaged(
    (nextToken) => ok(v1Api(workspaceId).GET('/v1/internal-users', { params: { query: { limit: 25, nextToken } } })),
    [workspaceId],
  );
  const companies = useLoad(() => api.get<Page<Company>>('/companies', { limit: 100, isPlaceholder: false }), [workspaceId]);
  const create = useAction();
  const change = useAction();

  // The staff lifecycle: a role changed, or a user removed (its sessions end, its tasks are unassigned).
  const setRole = (user: InternalUser, role: 'admin' | 'staff') =>
    change.run(async () => {
      await admin.patch(path`/workspaces/${workspaceId}/internal-users/${user.id}`, { role });
      list.reload();
      return `${user.email} is now ${role}.`;
    });
  const remove = (user: InternalUser) =>
    change.runIfConfirmed(`Remove ${user.email}? Their sessions end now; tasks assigned to them stay, unassigned.`, async () => {
      await admin.delete(path`/workspaces/${workspaceId}/internal-users/${user.id}`);
      list.reload();
      return `${user.email} removed.`;
    });

  const createUser = async (data: FormData) => {
    const companyAccessList = data.getAll('company').map(String);
    const body = {
      email: String(data.get('email')).trim(),
      givenName: String(data.get('givenName')).trim(),
      familyName: String(data.get('familyName')).trim(),
      role: String(data.get('role')),
      ...(companyAccessList.length > 0 ? { companyAccessList } : {}),
    };
    await admin.post(path`/workspaces/${workspaceId}/internal-users`, body);
    list.first();
    list.reload();
    return `Internal user ${body.email} created.`;
  };

  const names = new Map((companies.data?.data ?? []).map((c) => [c.id, c.name]));
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Internal users" context={useWorkspaceName()} />
      <Status>{latest(create, change)}</Status>
      <ErrorMessage error={change.error} />
      <ListState list={list} empty="No internal user yet." what="internal users" />
      {rows.length > 0 ? (
        <DataTable caption="Internal users (staff) of the workspace" columns={['Name', 'Email', 'Role', 'Companies', 'Created']} actions>
          {rows.map((user) => (
            <tr key={user.id}>
              <td data-label="Name">
                {user.givenName} {user.familyName}
              </td>
              <td data-label="Email">{user.email}</td>
              <td data-label="Role">{user.role}</td>
              <td data-label="Companies">
                {user.isClientAccessLimited ? user.companyAccessList.map((id) => names.get(id) ?? id).join(', ') || 'none' : 'all'}
              </td>
              <td data-label="Created">{formatDate(user.createdAt)}</td>
              <td class="actions">
                <RowButton
                  kind="secondary"
                  onClick={() => setRole(user, user.role === 'admin' ? 'staff' : 'admin')}
                  busy={change.busy}
                  label={`Make ${user.role === 'admin' ? 'staff' : 'admin'}: ${user.email}`}
                >
                  {user.role === 'admin' ? 'Make staff' : 'Make admin'}
                </RowButton>
                <RowButton kind="danger" onClick={() => remove(user)} busy={change.busy} label={`Remove ${user.email}`}>
                  Remove
                </RowButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Internal users" />

      <CreatePanel id="create-user" title="Add an internal user" submitLabel="Add internal user" action={create} create={createUser}>
        <Field label="Email">{(props) => <input {...props} name="email" type="email" required autocomplete="off" />}</Field>
        <Field label="Given name">{(props) => <input {...props} name="givenName" required maxLength={200} />}</Field>
        <Field label="Family name">{(props) => <input {...props} name="familyName" required maxLength={200} />}</Field>
        <Field label="Role">
          {(props) => (
            <select {...props} name="role">
              <option value="staff">staff</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
        {companies.data && companies.data.data.length > 0 ? (
          <fieldset class="wide">
            <legend>Limit to companies (none checked: every company)</legend>
            <div class="choices">
              {companies.data.data.map((company) => (
                <label class="choice" key={company.id}>
                  <input type="checkbox" name="company" value={company.id} />
                  {company.name}
                </label>
              ))}
            </div>
          </fieldset>
        ) : null}
      </CreatePanel>
    </>
  );
}
