import { type Page, path, v1, ok, v1Api } from '../api.js';
import { type Directory, useDirectory } from '../directory.js';
import type { Task } from '../types.js';
import {
  Badge,
  DataTable,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  RowButton,
  Status,
  formatDate,
  useAction,
  usePaged,
  FilterForm,
  useListQuery,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The statuses of GET /v1/tasks?status=… */
const TASK_STATUSES = ['todo', 'inProgress', 'completed'] as const;

/** The list filters of GET /v1/tasks (exact matches; companyId also finds its clients' tasks). */
type Filters = {
  status: string;
  internalUserId: string;
  clientId: string;
  companyId: string;
};

const NO_FILTERS: Filters = { status: '', internalUserId: '', clientId: '', companyId: '' };

export function TasksPage({ workspaceId }: { workspaceId: string }) {
  return (
    <>
      <PageHeading title="Tasks" context={useWorkspaceName()} />
      <Tasks workspaceId={workspaceId} />
      <Templates workspaceId={workspaceId} />
    </>
  );
}

/** Who the task is assigned to: an internal user, a client (in a company), a company, or no one. */
function assigneeOf(task: Task, names: Directory): string {
  if (task.internalUserId) return names.internalUser(task.internalUserId);
  if (task.clientId)
    return task.companyId ? `${names.client(task.clientId)} (${names.company(task.companyId)})` : names.client(task.clientId);
  if (task.companyId) return names.company(task.companyId);
  return 'no one';
}

function Tasks({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    NO_FILTERS,
    (filters, nextToken) => v1(workspaceId).get<Page<Task>>('/tasks', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, filtered, list } = query;
  const names = useDirectory(workspaceId);
  const change = useAction();

  const complete = (task: Task) =>
    change.runIfConfirmed(`Mark the task “${task.name}” completed?`, async () => {
      await v1(workspaceId).patch(path`/tasks/${task.id}`, { status: 'completed' });
      list.reload();
      return `Task “${task.name}” marked completed.`;
    });

  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="tasks">
      <h2 id="tasks">Tasks</h2>
      <FilterForm query={query} label="Tasks">
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              {['', ...TASK_STATUSES].map((s) => (
                <option key={s} value={s} selected={filters.status === s}>
                  {s || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Internal user id">
          {(props) => <input {...props} name="internalUserId" class="mono" defaultValue={filters.internalUserId} />}
        </Field>
        <Field label="Client id">{(props) => <input {...props} name="clientId" class="mono" defaultValue={filters.clientId} />}</Field>
        <Field label="Company id" hint="Its own tasks and its clients’.">
          {(props) => <input {...props} name="companyId" class="mono" defaultValue={filters.companyId} />}
        </Field>
      </FilterForm>
      <Status>{change.done}</Status>
      <ErrorMessage error={change.error} />
      <ListState list={list} empty={filtered ? 'No task matches these filters.' : 'No task yet.'} what="tasks" />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'Tasks matching the filters, newest first' : 'Tasks, newest first'}
          columns={['Name', 'Status', 'Assignee', 'Due', 'Created']}
          actions
        >
          {rows.map((task) => (
            <tr key={task.id}>
              <td data-label="Name" class="break">
                {task.name}
                {task.parentTaskId ? <div class="small muted">subtask</div> : null}
              </td>
              <td data-label="Status">
                <Badge value={task.status} />
                {task.isArchived ? <div class="small muted">archived</div> : null}
              </td>
              <td data-label="Assignee">{assigneeOf(task, names)}</td>
              <td data-label="Due">{formatDate(task.dueDate)}</td>
              <td data-label="Created">{formatDate(task.createdDate)}</td>
              <td class="actions">
                {task.status !== 'completed' ? (
                  <RowButton busy={change.busy} onClick={() => complete(task)} label={`Mark completed: task ${task.name}`}>
                    Mark completed
                  </RowButton>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Tasks" />
    </section>
  );
}

function Templates({ workspaceId }: { workspaceId: string }) {
  const list = usePaged(
    (nextToken) => ok(v1Api(workspaceId).GET('/v1/task-templates', { params: { query: { limit: 25, nextToken } } })),
    [workspaceId],
  );
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="task-templates">
      <h2 id="task-templates">Task templates</h2>
      <ListState list={list} empty="No task template." what="task templates" />
      {rows.length > 0 ? (
        <DataTable caption="Task templates, newest first" columns={['Name', 'Subtasks', 'Created']}>
          {rows.map((template) => (
            <tr key={template.id}>
              <td data-label="Name" class="break">
                {template.name}
              </td>
              <td data-label="Subtasks">{template.subTaskTemplates.map((sub) => sub.name).join(', ') || '—'}</td>
              <td data-label="Created">{formatDate(template.createdDate)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Task templates" />
    </section>
  );
}
