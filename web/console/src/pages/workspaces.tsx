import { useState } from 'preact/hooks';
import { admin, adminApi, ok, path } from '../api.js';
import { Link } from '../router.js';
import type { CreatedKey, Workspace } from '../types.js';
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
  SecretOnce,
  Status,
  formatDate,
  formatNumber,
  latest,
  useAction,
  usePaged,
} from '../ui.js';

/** A non-negative whole number from a form field, or undefined when left empty. */
function quotaOf(text: FormDataEntryValue | null): number | undefined {
  const value = String(text ?? '').trim();
  return value === '' ? undefined : Number(value);
}

export function WorkspacesPage() {
  const list = usePaged((nextToken) => ok(adminApi.GET('/admin/workspaces', { params: { query: { limit: 25, nextToken } } })), []);
  const [created, setCreated] = useState<(CreatedKey & { name: string }) | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const create = useAction();
  const edit = useAction();

  const createWorkspace = async (data: FormData) => {
    const name = String(data.get('name')).trim();
    const dailyQuota = quotaOf(data.get('dailyQuota'));
    const answer = await ok(adminApi.POST('/admin/workspaces', { body: { name, ...(dailyQuota === undefined ? {} : { dailyQuota }) } }));
    setCreated({ apiKeyId: answer.apiKeyId, apiKey: answer.apiKey, name });
    list.first();
    list.reload();
    return `Workspace ${name} created.`;
  };

  const saveWorkspace = async (workspace: Workspace, data: FormData) => {
    const name = String(data.get('name')).trim();
    const dailyQuota = quotaOf(data.get('dailyQuota'));
    await admin.patch(path`/workspaces/${workspace.id}`, {
      ...(name !== workspace.name ? { name } : {}),
      ...(dailyQuota !== undefined && dailyQuota !== workspace.dailyQuota ? { dailyQuota } : {}),
    });
    list.reload();
    return `Workspace ${name} saved.`;
  };

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Workspaces" />
      <Status>{latest(create, edit)}</Status>
      {created ? (
        <SecretOnce title={`Workspace API key of ${created.name}`} value={created.apiKey} onDone={() => setCreated(null)} />
      ) : null}
      <ErrorMessage error={edit.error} />
      <ListState list={list} empty="No workspace yet: create one below." what="workspaces" />
      {rows.length > 0 ? (
        <DataTable caption="Workspaces, with today's usage of their daily quota" columns={['Name', 'Usage today (UTC)', 'Created']} actions>
          {rows.map((workspace) =>
            editing === workspace.id ? (
              <EditRow
                key={workspace.id}
                columns={4}
                label={`Edit workspace ${workspace.name}`}
                action={edit}
                save={(data) => saveWorkspace(workspace, data)}
                close={() => setEditing(null)}
              >
                <Field label="Name">
                  {(props) => <input {...props} name="name" required maxLength={200} defaultValue={workspace.name} />}
                </Field>
                <Field label="Daily quota">
                  {(props) => (
                    <input
                      {...props}
                      name="dailyQuota"
                      type="number"
                      min={0}
                      step={1}
                      required
                      defaultValue={String(workspace.dailyQuota)}
                    />
                  )}
                </Field>
              </EditRow>
            ) : (
              <tr key={workspace.id}>
                <td data-label="Name">
                  <Link href={`/workspaces/${encodeURIComponent(workspace.id)}`}>{workspace.name}</Link>
                  <div class="mono small">{workspace.id}</div>
                </td>
                <td data-label="Usage today (UTC)">
                  <Usage used={workspace.usedToday} quota={workspace.dailyQuota} />
                </td>
                <td data-label="Created">{formatDate(workspace.createdAt)}</td>
                <td class="actions">
                  <RowButton kind="secondary" onClick={() => setEditing(workspace.id)} label={`Edit workspace ${workspace.name}`}>
                    Edit
                  </RowButton>
                </td>
              </tr>
            ),
          )}
        </DataTable>
      ) : null}
      <Pager list={list} label="Workspaces" />

      <CreatePanel id="create-workspace" title="Create a workspace" submitLabel="Create workspace" action={create} create={createWorkspace}>
        <Field label="Name">{(props) => <input {...props} name="name" required maxLength={200} />}</Field>
        <Field label="Daily quota" hint="Requests per UTC day; empty for the default.">
          {(props) => <input {...props} name="dailyQuota" type="number" min={0} step={1} />}
        </Field>
      </CreatePanel>
    </>
  );
}

function Usage({ used, quota }: { used: number; quota: number }) {
  const share = quota > 0 ? Math.min(1, used / quota) : used > 0 ? 1 : 0;
  const level = share >= 0.9 ? 'high' : share >= 0.7 ? 'medium' : 'low';
  return (
    <div class="usage">
      <span>
        {formatNumber(used)} of {formatNumber(quota)}
      </span>
      <span class={`bar bar-${level}`} aria-hidden="true">
        <span style={{ width: `${used > 0 ? Math.max(2, Math.round(share * 100)) : 0}%` }} />
      </span>
    </div>
  );
}
