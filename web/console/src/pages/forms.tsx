import { type Page, v1, ok, v1Api } from '../api.js';
import { useDirectory } from '../directory.js';
import type { Form, FormResponse } from '../types.js';
import {
  Badge,
  DataTable,
  Field,
  ListState,
  PageHeading,
  Pager,
  formatDate,
  formatNumber,
  useLoad,
  usePaged,
  FilterForm,
  useListQuery,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The statuses of GET /v1/form-responses?status=… */
const RESPONSE_STATUSES = ['pending', 'completed'] as const;

/** The forms offered in the responses' form filter: the first thousand, newest first. */
const FORM_CHOICES = 1000;

/** The list filters of GET /v1/form-responses (exact matches). */
type Filters = {
  formId: string;
  clientId: string;
  status: string;
};

const NO_FILTERS: Filters = { formId: '', clientId: '', status: '' };

export function FormsPage({ workspaceId }: { workspaceId: string }) {
  return (
    <>
      <PageHeading title="Forms" context={useWorkspaceName()} />
      <Forms workspaceId={workspaceId} />
      <Responses workspaceId={workspaceId} />
    </>
  );
}

function Forms({ workspaceId }: { workspaceId: string }) {
  const list = usePaged(
    (nextToken) => ok(v1Api(workspaceId).GET('/v1/forms', { params: { query: { limit: 25, nextToken } } })),
    [workspaceId],
  );
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="forms">
      <h2 id="forms">Forms</h2>
      <ListState list={list} empty="No form yet." what="forms" />
      {rows.length > 0 ? (
        <DataTable caption="Forms, newest first" columns={['Name', 'Fields', 'Requested', 'Completed', 'Created']}>
          {rows.map((form) => (
            <tr key={form.id}>
              <td data-label="Name" class="break">
                {form.name}
                {form.allowMultipleSubmissions ? <div class="small muted">multiple submissions</div> : null}
              </td>
              <td data-label="Fields">{formatNumber(form.formFieldIds.length)}</td>
              <td data-label="Requested">{formatNumber(form.formResponseRequests)}</td>
              <td data-label="Completed">{formatNumber(form.formResponseSubmissions)}</td>
              <td data-label="Created">{formatDate(form.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Forms" />
    </section>
  );
}

function Responses({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    NO_FILTERS,
    (filters, nextToken) => v1(workspaceId).get<Page<FormResponse>>('/form-responses', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, filtered, list } = query;
  const forms = useLoad(() => v1(workspaceId).get<Page<Form>>('/forms', { limit: FORM_CHOICES }), [workspaceId]);
  const names = useDirectory(workspaceId);

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="form-responses">
      <h2 id="form-responses">Form responses</h2>
      <FilterForm query={query} label="Form responses">
        <Field label="Form">
          {(props) => (
            <select {...props} name="formId">
              <option value="" selected={!filters.formId}>
                Any
              </option>
              {(forms.data?.data ?? []).map((form) => (
                <option key={form.id} value={form.id} selected={filters.formId === form.id}>
                  {form.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Client id">{(props) => <input {...props} name="clientId" class="mono" defaultValue={filters.clientId} />}</Field>
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              {['', ...RESPONSE_STATUSES].map((s) => (
                <option key={s} value={s} selected={filters.status === s}>
                  {s || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <ListState list={list} empty={filtered ? 'No form response matches these filters.' : 'No form response yet.'} what="form responses" />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'Form responses matching the filters, newest first' : 'Form responses, newest first'}
          columns={['Form', 'Client', 'Status', 'Requested', 'Submitted']}
        >
          {rows.map((response) => (
            <tr key={response.id}>
              <td data-label="Form" class="break">
                {response.formName}
              </td>
              <td data-label="Client">
                {names.client(response.clientId)}
                <div class="small muted">{names.company(response.companyId)}</div>
              </td>
              <td data-label="Status">
                <Badge value={response.status} />
              </td>
              <td data-label="Requested">{formatDate(response.createdAt)}</td>
              <td data-label="Submitted">{response.submissionDate ? formatDate(response.submissionDate) : 'not yet'}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Form responses" />
    </section>
  );
}
