import { AUDIT_EVENT_TYPES } from '../../../../src/shared/audit-events.js';
import { type Page, v1 } from '../api.js';
import type { AuditEntry } from '../types.js';
import { DataTable, Field, ListState, PageHeading, Pager, formatDate, FilterForm, useListQuery } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

type Filters = {
  eventType: string;
  actorId: string;
  companyId: string;
  createdAfter: string;
  createdBefore: string;
};

const NO_FILTERS: Filters = { eventType: '', actorId: '', companyId: '', createdAfter: '', createdBefore: '' };

/** A datetime-local value (the browser's time zone) as RFC 3339 UTC; '' stays ''. */
export function localToIso(value: string): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

export function AuditLogPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  const query = useListQuery(
    NO_FILTERS,
    (filters, nextToken) =>
      api.get<Page<AuditEntry>>('/audit-logs', {
        limit: 25,
        nextToken,
        eventType: filters.eventType,
        actorId: filters.actorId,
        companyId: filters.companyId,
        createdAfter: localToIso(filters.createdAfter),
        createdBefore: localToIso(filters.createdBefore),
      }),
    [workspaceId],
  );
  const { filters, filtered, list } = query;
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Audit log" context={useWorkspaceName()} />
      <FilterForm query={query} label="Audit log filters">
        <Field label="Event type">
          {(props) => (
            <select {...props} name="eventType">
              <option value="" selected={filters.eventType === ''}>
                Any
              </option>
              {AUDIT_EVENT_TYPES.map((type) => (
                <option key={type} value={type} selected={filters.eventType === type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Actor id">{(props) => <input {...props} name="actorId" class="mono" defaultValue={filters.actorId} />}</Field>
        <Field label="Company id">{(props) => <input {...props} name="companyId" class="mono" defaultValue={filters.companyId} />}</Field>
        <Field label="Created after" hint="Your local time.">
          {(props) => <input {...props} name="createdAfter" type="datetime-local" step={1} defaultValue={filters.createdAfter} />}
        </Field>
        <Field label="Created before" hint="Your local time.">
          {(props) => <input {...props} name="createdBefore" type="datetime-local" step={1} defaultValue={filters.createdBefore} />}
        </Field>
      </FilterForm>

      <ListState list={list} empty={filtered ? 'No entry matches these filters.' : 'The audit log is empty.'} what="the audit log" />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'Audit log entries matching the filters, newest first' : 'Audit log, newest first'}
          columns={['When', 'Event', 'Actor', 'Company', 'Details']}
        >
          {rows.map((entry) => (
            <tr key={entry.id}>
              <td data-label="When">{formatDate(entry.createdAt)}</td>
              <td data-label="Event">
                <strong>{entry.eventType}</strong>
                <div class="small">{entry.eventDescription}</div>
              </td>
              <td data-label="Actor">
                {entry.actorId ? <span class="mono small">{entry.actorId}</span> : <span class="muted">system</span>}
                {entry.actorType ? <div class="small">{entry.actorType}</div> : null}
                <div class="small">via {entry.source}</div>
              </td>
              <td data-label="Company" class="mono small">
                {entry.companyId ?? '—'}
              </td>
              <td data-label="Details">
                {entry.data ? (
                  <details>
                    <summary>Object {entry.ref ? <span class="mono small">{entry.ref}</span> : null}</summary>
                    <pre>{pretty(entry.data)}</pre>
                  </details>
                ) : (
                  <span class="mono small">{entry.ref || '—'}</span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Audit log" />
    </>
  );
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
