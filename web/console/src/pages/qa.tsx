import { useState } from 'preact/hooks';
import { admin, type Page, path, v1, adminApi, ok } from '../api.js';
import type { Client, InternalUser, QaPrincipal } from '../types.js';
import {
  CreatePanel,
  DataTable,
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
  usePaged,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/**
 * The QA surface for app developers: clients and internal users marked for testing (QA principals), an impersonation
 * session token for one (with an app key pasted here, never kept), and short-lived agent bearer tokens for an app key.
 */
export function QaPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  const _base = path`/workspaces/${workspaceId}/qa`;
  const list = usePaged(
    (nextToken) =>
      ok(
        adminApi.GET('/admin/workspaces/{workspaceId}/qa/principals', {
          params: { path: { workspaceId }, query: { limit: 25, nextToken } },
        }),
      ),
    [workspaceId],
  );
  const people = useLoad(
    async () => ({
      clients: (await api.get<Page<Client>>('/clients', { limit: 100 })).data,
      users: (await api.get<Page<InternalUser>>('/internal-users', { limit: 100 })).data,
    }),
    [workspaceId],
  );
  const keys = useLoad(
    () => ok(adminApi.GET('/admin/workspaces/{workspaceId}/keys', { params: { path: { workspaceId } } })),
    [workspaceId],
  );
  const [appKey, setAppKey] = useState('');
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const create = useAction();
  const change = useAction();
  const agent = useAction();

  const mark = async (data: FormData) => {
    const [kind, id] = String(data.get('person')).split(':');
    const principal = await ok(
      adminApi.POST('/admin/workspaces/{workspaceId}/qa/principals', {
        params: { path: { workspaceId } },
        body: kind === 'client' ? { clientId: id } : { internalUserId: id },
      }),
    );
    list.first();
    list.reload();
    return `${principal.email} is a QA principal.`;
  };
  const mint = (principal: QaPrincipal) =>
    change.run(async () => {
      const minted = await ok(
        adminApi.POST('/admin/workspaces/{workspaceId}/qa/principals/{principalId}/tokens', {
          params: { path: { workspaceId, principalId: principal.id } },
          body: { apiKey: appKey.trim() },
        }),
      );
      setSecret({ title: `Impersonation token for ${principal.email} (session ${minted.tokenId})`, value: minted.token });
      return `Token minted for ${principal.email}.`;
    });
  const remove = (principal: QaPrincipal) =>
    change.runIfConfirmed(
      `Remove ${principal.email} from QA? Their sessions end now; the ${principal.kind === 'client' ? 'client' : 'user'} stays.`,
      async () => {
        await admin.delete(path`/workspaces/${workspaceId}/qa/principals/${principal.id}`);
        list.reload();
        return `${principal.email} is no longer a QA principal.`;
      },
    );
  const mintAgent = async (data: FormData) => {
    const lifetime = Number(data.get('lifetimeSeconds'));
    const minted = await ok(
      adminApi.POST('/admin/workspaces/{workspaceId}/qa/agent-tokens', {
        params: { path: { workspaceId } },
        body: { apiKeyId: String(data.get('apiKeyId')), ...(lifetime ? { lifetimeSeconds: lifetime } : {}) },
      }),
    );
    setSecret({ title: `Agent bearer token for key ${minted.apiKeyId}`, value: minted.token });
    return 'Agent token minted.';
  };

  const rows = list.data?.data ?? [];
  const appKeys = (keys.data?.data ?? []).filter((k) => k.kind === 'app' && !k.revokedAt);
  return (
    <>
      <PageHeading title="QA" context={useWorkspaceName()} />
      <p class="hint">
        QA principals are ordinary clients and internal users marked for testing: only they can be impersonated here. Removing one revokes
        its sessions.
      </p>
      <Status>{latest(create, change, agent)}</Status>
      {secret ? <SecretOnce title={secret.title} value={secret.value} onDone={() => setSecret(null)} /> : null}
      <ErrorMessage error={change.error} />
      <Field label="App API key for impersonation tokens" name="appKey" hint="The token is encrypted with it; it is not kept.">
        {(props) => <input {...props} class="mono" autocomplete="off" value={appKey} onInput={(e) => setAppKey(e.currentTarget.value)} />}
      </Field>
      <ListState list={list} empty="No QA principal yet." what="QA principals" />
      {rows.length > 0 ? (
        <DataTable caption="QA principals of the workspace" columns={['Name', 'Email', 'Kind', 'Marked']} actions>
          {rows.map((principal) => (
            <tr key={principal.id}>
              <td data-label="Name">
                {principal.givenName} {principal.familyName}
              </td>
              <td data-label="Email">{principal.email}</td>
              <td data-label="Kind">{principal.kind === 'client' ? 'client' : 'internal user'}</td>
              <td data-label="Marked">{formatDate(principal.createdAt)}</td>
              <td class="actions">
                <RowButton kind="secondary" onClick={() => mint(principal)} busy={change.busy} label={`Mint token for ${principal.email}`}>
                  Mint token
                </RowButton>
                <RowButton kind="danger" onClick={() => remove(principal)} busy={change.busy} label={`Remove ${principal.email} from QA`}>
                  Remove
                </RowButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="QA principals" />

      <CreatePanel id="create-qa-principal" title="Add a QA principal" submitLabel="Add QA principal" action={create} create={mark}>
        <Field label="Client or internal user">
          {(props) => (
            <select {...props} name="person" required>
              <optgroup label="Clients">
                {(people.data?.clients ?? []).map((c) => (
                  <option key={c.id} value={`client:${c.id}`}>
                    {c.givenName} {c.familyName} &lt;{c.email}&gt;
                  </option>
                ))}
              </optgroup>
              <optgroup label="Internal users">
                {(people.data?.users ?? []).map((u) => (
                  <option key={u.id} value={`internalUser:${u.id}`}>
                    {u.givenName} {u.familyName} &lt;{u.email}&gt;
                  </option>
                ))}
              </optgroup>
            </select>
          )}
        </Field>
      </CreatePanel>

      <CreatePanel
        id="mint-agent-token"
        title="Mint an agent bearer token"
        submitLabel="Mint agent token"
        action={agent}
        create={mintAgent}
      >
        <Field label="App key">
          {(props) => (
            <select {...props} name="apiKeyId" required>
              {appKeys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.label || k.id} (app {k.appId})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Lifetime (seconds)" hint="60 to 3600; 900 when empty.">
          {(props) => <input {...props} name="lifetimeSeconds" type="number" min={60} max={3600} />}
        </Field>
      </CreatePanel>
    </>
  );
}
