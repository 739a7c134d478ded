import { useState } from 'preact/hooks';
import { WEBHOOK_EVENT_NAMES } from '../../../../src/shared/audit-events.js';
import { admin, adminApi, ok, type Page, path } from '../api.js';
import type { Body } from '../../../kit/api.js';
import type { WebhookDelivery, WebhookEndpoint } from '../types.js';
import {
  Badge,
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
  confirmed,
  formatDate,
  latest,
  useAction,
  useLoad,
  FilterForm,
  useListQuery,
  Submit,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';
import { localToIso } from './audit-log.js';

type EventType = NonNullable<Body<'/admin/workspaces/{workspaceId}/webhooks', 'post'>['eventTypes']>[number];

export function WebhooksPage({ workspaceId }: { workspaceId: string }) {
  const endpoints = useLoad(
    () => admin.get<Page<WebhookEndpoint>>(path`/workspaces/${workspaceId}/webhooks`, { limit: 100 }),
    [workspaceId],
  );
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const create = useAction();
  const change = useAction();

  const addEndpoint = async (data: FormData) => {
    const url = String(data.get('url')).trim();
    // The boxes are the server's own event names (src/shared/audit-events.ts).
    const eventTypes = data.getAll('eventTypes').map((name) => String(name) as EventType);
    const created = await ok(
      adminApi.POST('/admin/workspaces/{workspaceId}/webhooks', {
        params: { path: { workspaceId } },
        body: { url, ...(eventTypes.length > 0 ? { eventTypes } : {}) },
      }),
    );
    if (created.secret) setSecret({ title: `Signing secret of ${created.url}`, value: created.secret });
    endpoints.reload();
    return `Endpoint ${url} added.`;
  };

  const act = (endpoint: WebhookEndpoint, action: 'enable' | 'disable' | 'rotate-secret' | 'delete') => {
    if (action === 'delete' && !confirmed(`Delete the endpoint ${endpoint.url} and its delivery log?`)) return;
    if (action === 'rotate-secret' && !confirmed(`Rotate the signing secret of ${endpoint.url}? Both secrets sign for 24 hours.`)) return;
    void change.run(async () => {
      const base = path`/workspaces/${workspaceId}/webhooks/${endpoint.id}`;
      if (action === 'delete') await admin.delete(base);
      else if (action === 'rotate-secret') {
        const rotated = await ok(
          adminApi.POST('/admin/workspaces/{workspaceId}/webhooks/{endpointId}/rotate-secret', {
            params: { path: { workspaceId, endpointId: endpoint.id } },
          }),
        );
        setSecret({ title: `New signing secret of ${endpoint.url}`, value: rotated.secret });
      } else await admin.post(`${base}/${action}`);
      endpoints.reload();
      return `Endpoint ${endpoint.url}: ${action === 'rotate-secret' ? 'secret rotated' : `${action}d`}.`;
    });
  };

  const rows = endpoints.data?.data ?? [];
  return (
    <>
      <PageHeading title="Webhooks" context={useWorkspaceName()} />
      <Status>{latest(create, change)}</Status>
      {secret ? <SecretOnce title={secret.title} value={secret.value} onDone={() => setSecret(null)} /> : null}
      <h2>Endpoints</h2>
      <ErrorMessage error={change.error} />
      <ListState list={endpoints} empty="No endpoint: add one below." what="endpoints" />
      {rows.length > 0 ? (
        <DataTable caption="Webhook endpoints" columns={['URL', 'Events', 'State']} actions>
          {rows.map((endpoint) => (
            <tr key={endpoint.id}>
              <td data-label="URL" class="break">
                {endpoint.url}
                <div class="mono small">{endpoint.id}</div>
              </td>
              <td data-label="Events">{endpoint.eventTypes.includes('*') ? 'every event' : endpoint.eventTypes.join(', ')}</td>
              <td data-label="State">
                <Badge value={endpoint.enabled ? 'enabled' : 'disabled'} />
                {endpoint.disabledReason ? <div class="small">{endpoint.disabledReason}</div> : null}
                {endpoint.failingSince ? <div class="small">failing since {formatDate(endpoint.failingSince)}</div> : null}
              </td>
              <td class="actions">
                <RowButton kind="secondary" busy={change.busy} onClick={() => act(endpoint, endpoint.enabled ? 'disable' : 'enable')}>
                  {endpoint.enabled ? 'Disable' : 'Enable'}
                </RowButton>
                <RowButton kind="secondary" busy={change.busy} onClick={() => act(endpoint, 'rotate-secret')}>
                  Rotate secret
                </RowButton>
                <RowButton
                  kind="danger"
                  busy={change.busy}
                  onClick={() => act(endpoint, 'delete')}
                  label={`Delete endpoint ${endpoint.url}`}
                >
                  Delete
                </RowButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}

      <CreatePanel id="create-endpoint" title="Add an endpoint" submitLabel="Add endpoint" action={create} create={addEndpoint}>
        <Field label="URL" class="wide" hint="https:// (http:// and private addresses only where the server allows them).">
          {(props) => <input {...props} name="url" type="url" required maxLength={2000} />}
        </Field>
        <Field label="Events" class="wide" hint="None selected: every event. Ctrl/⌘-click selects several.">
          {(props) => (
            <select {...props} name="eventTypes" multiple size={6}>
              {WEBHOOK_EVENT_NAMES.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </CreatePanel>

      <Deliveries workspaceId={workspaceId} endpoints={rows} />
    </>
  );
}

function Deliveries({ workspaceId, endpoints }: { workspaceId: string; endpoints: WebhookEndpoint[] }) {
  const query = useListQuery(
    { status: '', endpointId: '' },
    (filters, nextToken) =>
      admin.get<Page<WebhookDelivery>>(path`/workspaces/${workspaceId}/webhook-deliveries`, { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, list } = query;
  const replay = useAction();
  const urls = new Map(endpoints.map((e) => [e.id, e.url]));

  const replayOne = (delivery: WebhookDelivery) =>
    void replay.run(async () => {
      await admin.post(path`/workspaces/${workspaceId}/webhook-deliveries/${delivery.id}/replay`);
      list.reload();
      return `Delivery of ${delivery.eventType} queued again.`;
    });

  const replaySince = async (event: Event) => {
    event.preventDefault();
    const failedSince = localToIso(String(new FormData(event.currentTarget as HTMLFormElement).get('failedSince') ?? ''));
    await replay.run(async () => {
      const answer = await ok(
        adminApi.POST('/admin/workspaces/{workspaceId}/webhook-deliveries/replay', {
          params: { path: { workspaceId } },
          body: { failedSince },
        }),
      );
      list.reload();
      return `${answer.replayed} failed ${answer.replayed === 1 ? 'delivery' : 'deliveries'} queued again.`;
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Delivery log</h2>
      <FilterForm
        query={query}
        label="Deliveries"
        submitLabel="Show"
        clearLabel={null}
        buttons={
          <button type="button" class="secondary" onClick={list.reload}>
            Refresh
          </button>
        }
      >
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              {['', 'pending', 'succeeded', 'failed'].map((s) => (
                <option key={s} value={s} selected={filters.status === s}>
                  {s || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Endpoint">
          {(props) => (
            <select {...props} name="endpointId">
              <option value="">Any</option>
              {endpoints.map((e) => (
                <option key={e.id} value={e.id} selected={filters.endpointId === e.id}>
                  {e.url}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <Status>{replay.done}</Status>
      <ErrorMessage error={replay.error} />
      <ListState list={list} empty="No delivery." what="deliveries" />
      {rows.length > 0 ? (
        <DataTable caption="Webhook deliveries, newest first" columns={['Event', 'Endpoint', 'Status', 'Attempts', 'Created']} actions>
          {rows.map((delivery) => (
            <tr key={delivery.id}>
              <td data-label="Event">
                {delivery.eventType}
                <div class="mono small">{delivery.webhookId}</div>
              </td>
              <td data-label="Endpoint" class="break small">
                {urls.get(delivery.endpointId) ?? delivery.endpointId}
              </td>
              <td data-label="Status">
                <Badge value={delivery.status} />
                {delivery.lastStatus !== null ? <div class="small">last answer {delivery.lastStatus}</div> : null}
                {delivery.lastError ? <div class="small">{delivery.lastError}</div> : null}
                {delivery.nextAttemptAt ? <div class="small">next try {formatDate(delivery.nextAttemptAt)}</div> : null}
              </td>
              <td data-label="Attempts">
                {delivery.log.length > 0 ? (
                  <details>
                    <summary>
                      {delivery.attempts} <span class="small">(log)</span>
                    </summary>
                    <ol class="attempts">
                      {delivery.log.map((attempt, i) => (
                        <li key={`${i}-${attempt.createdAt}`}>
                          {formatDate(attempt.createdAt)}: {attempt.statusCode ?? attempt.error ?? 'no answer'} in {attempt.durationMs} ms
                          {attempt.responseExcerpt ? <pre>{attempt.responseExcerpt}</pre> : null}
                        </li>
                      ))}
                    </ol>
                  </details>
                ) : (
                  delivery.attempts
                )}
              </td>
              <td data-label="Created">{formatDate(delivery.createdAt)}</td>
              <td class="actions">
                <RowButton
                  kind="secondary"
                  busy={replay.busy}
                  onClick={() => replayOne(delivery)}
                  label={`Replay delivery of ${delivery.eventType} (${delivery.id})`}
                >
                  Replay
                </RowButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Deliveries" />
      <form class="inline-form panel" onSubmit={replaySince} aria-labelledby="replay-since">
        <h3 id="replay-since" class="wide">
          Replay every failure since
        </h3>
        <Field label="Failed at or after" hint="Your local time.">
          {(props) => <input {...props} name="failedSince" type="datetime-local" step={1} required />}
        </Field>
        <Submit label="Replay failures" kind="secondary" busy={replay.busy} />
      </form>
    </section>
  );
}
