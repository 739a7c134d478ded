// The Tasks section (/tasks, /tasks/<id>): the tasks the API shows the person (a client: those assigned to it or its
// company, and those it follows), filtered by status; a task's page with its steps; marking one done and reopening it.
import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { DataTable, FilterForm, ListState, Pager, useListQuery, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { useLoad } from '../../../kit/ui.js';
import { type Person, ok, v1 } from '../api.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { Link } from '../router.js';
import type { Waiting } from '../sections.js';
import { ErrorMessage, Field, PageHeading, Status, useAction } from '../ui.js';
import { counted, everyItem, formatDue, formatWhen } from '../work.js';
import { NotFoundPage } from './not-found.js';

type Task = Item<'/v1/tasks'>;
type TaskStatus = Task['status'];

const STATUS_WORDS: Record<TaskStatus, string> = { todo: 'To do', inProgress: 'In progress', completed: 'Done' };
const STATUSES = Object.keys(STATUS_WORDS) as TaskStatus[];

export function TasksPage({ path }: { path: string }) {
  const one = match('/tasks/:id', path);
  if (one) return <TaskPage id={one.id} />;
  if (path !== '/tasks') return <NotFoundPage />;
  return <TaskList />;
}

/**
 * Whether the person marks this task done and reopens it: a client, a task assigned to it or to its company (not one
 * of the staff's it follows); staff, any (the API refuses another internal user's task, and the page says so).
 */
function marks(person: Person, task: Task): boolean {
  if (person.type !== 'client') return true;
  return task.internalUserId === undefined && (task.clientId === undefined || task.clientId === person.id);
}

/** Whether the task is the person's to do: a client's or its company's; an internal user's own. */
function isMine(person: Person, task: Task): boolean {
  return person.type === 'client' ? marks(person, task) : task.internalUserId === person.id;
}

function assignedTo(person: Person, task: Task): string {
  if (task.internalUserId === person.id) return 'You';
  if (person.type === 'client') {
    if (task.internalUserId) return 'Our team (you can follow it here)';
    return task.clientId === person.id ? 'You' : 'Your company';
  }
  if (task.internalUserId) return 'Another member of staff';
  if (task.clientId) return 'A client';
  return task.companyId ? 'A company' : 'No one';
}

function StatusBadge({ status }: { status: TaskStatus }) {
  return <span class={`badge badge-${status}`}>{STATUS_WORDS[status]}</span>;
}

const changeStatus = (task: Task, status: TaskStatus) =>
  ok(v1.PATCH('/v1/tasks/{id}', { params: { path: { id: task.id } }, body: { status } }));

/** What marking the task changes: done, or (once done) to do again. */
const nextStatus = (task: Task): TaskStatus => (task.status === 'completed' ? 'todo' : 'completed');
const markLabel = (task: Task) => (task.status === 'completed' ? 'Reopen' : 'Mark as done');
const markedSays = (task: Task) => (task.status === 'completed' ? `“${task.name}” is done.` : `“${task.name}” is open again.`);

function TaskList() {
  const { person, workspace } = useSignedIn();
  const query = useListQuery(
    { status: '' },
    (filters, nextToken) =>
      ok(
        v1.GET('/v1/tasks', {
          params: { query: { limit: 25, nextToken, ...(filters.status ? { status: filters.status as TaskStatus } : {}) } },
        }),
      ),
    [],
  );
  const { filters, filtered, list } = query;
  const action = useAction();
  const mark = (task: Task) =>
    void action.run(async () => {
      const changed = await changeStatus(task, nextStatus(task));
      list.reload();
      return markedSays(changed);
    });
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Tasks" context={workspace.name} />
      <p>{person.type === 'client' ? 'What we have asked of you and your company, and what you follow.' : 'The tasks you can see.'}</p>
      <FilterForm query={query} label="Tasks" submitLabel="Show" clearLabel="Show all">
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              <option value="" selected={filters.status === ''}>
                Any
              </option>
              {STATUSES.map((status) => (
                <option key={status} value={status} selected={filters.status === status}>
                  {STATUS_WORDS[status]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <Status>{action.done}</Status>
      <ErrorMessage error={action.error} />
      <ListState list={list} what="tasks" empty={filtered ? 'No task with this status.' : 'No task for you yet.'} />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'Tasks with this status, newest first' : 'Tasks, newest first'}
          columns={['Task', 'Status', 'Due', 'Assigned to']}
          actions
        >
          {rows.map((task) => (
            <tr key={task.id}>
              <td data-label="Task" class="break">
                <Link href={`/tasks/${encodeURIComponent(task.id)}`}>{task.name}</Link>
                {task.parentTaskId ? <div class="hint">A step of another task</div> : null}
                {task.isArchived ? <div class="hint">Archived</div> : null}
              </td>
              <td data-label="Status">
                <StatusBadge status={task.status} />
              </td>
              <td data-label="Due">{task.dueDate ? formatDue(task.dueDate) : 'No due date'}</td>
              <td data-label="Assigned to">{assignedTo(person, task)}</td>
              <td class="actions">
                {marks(person, task) ? (
                  <button
                    type="button"
                    class="secondary"
                    disabled={action.busy}
                    onClick={() => mark(task)}
                    aria-label={`${markLabel(task)}: ${task.name}`}
                  >
                    {markLabel(task)}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Tasks" />
    </>
  );
}

function TaskPage({ id }: { id: string }) {
  const { workspace } = useSignedIn();
  const loaded = useLoad(() => ok(v1.GET('/v1/tasks/{id}', { params: { path: { id } } })), [id]);
  // The task as the last change answered it, else as loaded.
  const [changed, setChanged] = useState<Task | null>(null);
  const task = changed ?? loaded.data;
  if (!task) {
    return (
      <>
        <PageHeading title={loaded.error ? 'Task not available' : 'Task'} context={workspace.name} />
        {loaded.error ? <ErrorMessage error={loaded.error} focus /> : <p aria-live="polite">Loading the task…</p>}
        <p>
          <Link href="/tasks">All tasks</Link>
        </p>
      </>
    );
  }
  return <TaskDetails task={task} onChange={setChanged} />;
}

function TaskDetails({ task, onChange }: { task: Task; onChange: (task: Task) => void }) {
  const { person, workspace } = useSignedIn();
  const action = useAction();
  const mark = () =>
    void action.run(async () => {
      const changed = await changeStatus(task, nextStatus(task));
      onChange(changed);
      return markedSays(changed);
    });
  return (
    <>
      <PageHeading title={task.name} context={workspace.name} />
      <p>
        <Link href="/tasks">All tasks</Link>
      </p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={task.status} />
          {task.isArchived ? ' (archived)' : null}
        </dd>
        <dt>Due</dt>
        <dd>{task.dueDate ? formatDue(task.dueDate) : 'No due date'}</dd>
        <dt>Assigned to</dt>
        <dd>{assignedTo(person, task)}</dd>
        {task.completedDate ? (
          <>
            <dt>Done</dt>
            <dd>
              {formatWhen(task.completedDate)}
              {task.completedBy === person.id ? ', by you' : null}
            </dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>{formatWhen(task.createdDate)}</dd>
      </dl>
      {task.description ? <p class="prose">{task.description}</p> : null}
      {task.parentTaskId ? <ParentTask id={task.parentTaskId} /> : null}
      <Status>{action.done}</Status>
      <ErrorMessage error={action.error} />
      {marks(person, task) ? (
        <div class="actions">
          <button type="button" onClick={mark} disabled={action.busy}>
            {markLabel(task)}
          </button>
        </div>
      ) : (
        <p class="hint">Our team does this task; you can follow it here.</p>
      )}
      <Steps parentId={task.id} />
    </>
  );
}

/** The task this one is a step of, when the person sees it (otherwise nothing is said). */
function ParentTask({ id }: { id: string }) {
  const parent = useLoad(() => ok(v1.GET('/v1/tasks/{id}', { params: { path: { id } } })), [id]);
  if (!parent.data) return null;
  return (
    <p>
      A step of <Link href={`/tasks/${encodeURIComponent(id)}`}>{parent.data.name}</Link>.
    </p>
  );
}

/** The task's subtasks (its steps) that the person sees; nothing when it has none. */
function Steps({ parentId }: { parentId: string }) {
  const list = usePaged(
    (nextToken) => ok(v1.GET('/v1/tasks', { params: { query: { parentTaskId: parentId, limit: 25, nextToken } } })),
    [parentId],
  );
  const steps = list.data?.data ?? [];
  if (steps.length === 0 && !list.error) return null;
  return (
    <section aria-labelledby="steps" class="panel">
      <h2 id="steps">Steps</h2>
      <ErrorMessage error={list.error} />
      <ul class="items">
        {steps.map((step) => (
          <li key={step.id}>
            <Link href={`/tasks/${encodeURIComponent(step.id)}`}>{step.name}</Link> <StatusBadge status={step.status} />
          </li>
        ))}
      </ul>
      <Pager list={list} label="Steps" />
    </section>
  );
}

/** The person's open tasks (to do or in progress, not archived): a client's and its company's; staff's own. */
export async function tasksWaiting({ person }: SignedIn): Promise<Waiting> {
  const open = (status: TaskStatus) =>
    everyItem((nextToken) =>
      ok(
        v1.GET('/v1/tasks', {
          params: { query: { status, limit: 1000, nextToken, ...(person.type === 'client' ? {} : { internalUserId: person.id }) } },
        }),
      ),
    );
  const tasks = (await Promise.all([open('todo'), open('inProgress')])).flat();
  const count = tasks.filter((task) => !task.isArchived && isMine(person, task)).length;
  return { section: '/tasks', count, says: counted(count, 'task to do', 'tasks to do') };
}
