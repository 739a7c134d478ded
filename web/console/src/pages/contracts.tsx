import { type Page, v1 } from '../api.js';
import { useDirectory } from '../directory.js';
import type { Contract, ContractTemplate } from '../types.js';
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

/** The statuses of GET /v1/contracts?status=… */
const CONTRACT_STATUSES = ['pending', 'signed'] as const;

/** The templates offered in the contracts' template filter: the first thousand, newest first. */
const TEMPLATE_CHOICES = 1000;

/** The list filters of GET /v1/contracts (exact matches). */
type Filters = {
  contractTemplateId: string;
  clientId: string;
  status: string;
};

const NO_FILTERS: Filters = { contractTemplateId: '', clientId: '', status: '' };

export function ContractsPage({ workspaceId }: { workspaceId: string }) {
  return (
    <>
      <PageHeading title="Contracts" context={useWorkspaceName()} />
      <Contracts workspaceId={workspaceId} />
      <Templates workspaceId={workspaceId} />
    </>
  );
}

function Contracts({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    NO_FILTERS,
    (filters, nextToken) => v1(workspaceId).get<Page<Contract>>('/contracts', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, filtered, list } = query;
  const templates = useLoad(
    () => v1(workspaceId).get<Page<ContractTemplate>>('/contract-templates', { limit: TEMPLATE_CHOICES }),
    [workspaceId],
  );
  const names = useDirectory(workspaceId);

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="contracts">
      <h2 id="contracts">Contracts</h2>
      <FilterForm query={query} label="Contracts">
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              {['', ...CONTRACT_STATUSES].map((s) => (
                <option key={s} value={s} selected={filters.status === s}>
                  {s || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Client id" hint="The recipient.">
          {(props) => <input {...props} name="clientId" class="mono" defaultValue={filters.clientId} />}
        </Field>
        <Field label="Template">
          {(props) => (
            <select {...props} name="contractTemplateId">
              <option value="" selected={!filters.contractTemplateId}>
                Any
              </option>
              {(templates.data?.data ?? []).map((template) => (
                <option key={template.id} value={template.id} selected={filters.contractTemplateId === template.id}>
                  {template.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <ListState list={list} empty={filtered ? 'No contract matches these filters.' : 'No contract yet.'} what="contracts" />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'Contracts matching the filters, newest first' : 'Contracts, newest first'}
          columns={['Name', 'Recipient', 'Status', 'Sent', 'Signed']}
        >
          {rows.map((contract) => (
            <tr key={contract.id}>
              <td data-label="Name" class="break">
                {contract.name}
              </td>
              <td data-label="Recipient">
                {names.client(contract.clientId)}
                <div class="small muted">{names.company(contract.companyId)}</div>
              </td>
              <td data-label="Status">
                <Badge value={contract.status} />
              </td>
              <td data-label="Sent">{formatDate(contract.shareDate)}</td>
              <td data-label="Signed">{contract.submissionDate ? formatDate(contract.submissionDate) : 'not yet'}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Contracts" />
    </section>
  );
}

function Templates({ workspaceId }: { workspaceId: string }) {
  const list = usePaged(
    (nextToken) => v1(workspaceId).get<Page<ContractTemplate>>('/contract-templates', { limit: 25, nextToken }),
    [workspaceId],
  );
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="contract-templates">
      <h2 id="contract-templates">Contract templates</h2>
      <ListState list={list} empty="No contract template yet." what="contract templates" />
      {rows.length > 0 ? (
        <DataTable caption="Contract templates, newest first" columns={['Name', 'Fields', 'Sent', 'Signed', 'Created']}>
          {rows.map((template) => (
            <tr key={template.id}>
              <td data-label="Name" class="break">
                {template.name}
              </td>
              <td data-label="Fields">{formatNumber(template.fields.length)}</td>
              <td data-label="Sent">{formatNumber(template.requestsCount)}</td>
              <td data-label="Signed">{formatNumber(template.submissionsCount)}</td>
              <td data-label="Created">{formatDate(template.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Contract templates" />
    </section>
  );
}
