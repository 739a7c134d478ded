import { type Page, v1 } from '../api.js';
import { useDirectory } from '../directory.js';
import type { Note } from '../types.js';
import { DataTable, Field, ListState, PageHeading, Pager, formatDate, FilterForm, useListQuery } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The entity types of GET /v1/notes?entityType=… */
const ENTITY_TYPES = ['client', 'company'] as const;

/** The list filters of GET /v1/notes: entityId only with entityType. */
type Filters = {
  entityType: string;
  entityId: string;
};

const NO_FILTERS: Filters = { entityType: '', entityId: '' };

/**
 * Notes on the workspace's clients and companies: title, what it is on, who wrote it, when. Their content
 * is HTML the service stores unsanitized, so the console does not render it.
 */
export function NotesPage({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    NO_FILTERS,
    (filters, nextToken) => v1(workspaceId).get<Page<Note>>('/notes', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, filtered, list } = query;
  const names = useDirectory(workspaceId);

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Notes" context={useWorkspaceName()} />
      <FilterForm query={query} label="Notes">
        <Field label="On">
          {(props) => (
            <select {...props} name="entityType">
              {['', ...ENTITY_TYPES].map((type) => (
                <option key={type} value={type} selected={filters.entityType === type}>
                  {type ? `a ${type}` : 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Client or company id" hint="With “On” set to which it is.">
          {(props) => <input {...props} name="entityId" class="mono" defaultValue={filters.entityId} />}
        </Field>
      </FilterForm>
      <ListState list={list} empty={filtered ? 'No note matches these filters.' : 'No note yet.'} what="notes" />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'Notes matching the filters, newest first' : 'Notes, newest first'}
          columns={['Title', 'On', 'Written by', 'Updated']}
        >
          {rows.map((note) => (
            <tr key={note.id}>
              <td data-label="Title" class="break">
                {note.title}
              </td>
              <td data-label="On">
                {note.entityType === 'client' ? names.client(note.entityId) : names.company(note.entityId)}
                <div class="small muted">{note.entityType}</div>
              </td>
              <td data-label="Written by">{names.person(note.creatorId)}</td>
              <td data-label="Updated">{formatDate(note.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Notes" />
    </>
  );
}
