// The Tasks section (/tasks, /tasks/<id>): the tasks the API shows the person (a client: those assigned to it or its
// company, and those it follows), filtered by status; a task's page with its steps; marking one done and reopening it.
// An internal user's /tasks is the task board, and /tasks/templates the templates (staff/task-board.tsx, task-templates.tsx).
import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { DataTable, FilterForm, ListState, Pager, useListQuery, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { useLoad } from '../../../kit/ui.js';
import { type Person, ok, v1 } from '../api.js';
import { type NameWanted, type Names, useNames } from '../names.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { Link } from '../router.js';
import type { Waiting } from '../sections.js';
import { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Status, useAction } from '../ui.js';
import { counted, everyItem, formatDue, formatWhen } from '../work.js';
import { NotFoundPage } from './not-found.js';
import { TaskBoard } from '../staff/task-board.js';
import { TaskTemplatesPage } from '../staff/task-templates.js';

type Task = Item<'/v1/tasks'>;
type TaskStatus = Task['status'];

const STATUS_WORDS: Record<TaskStatus, string> = { todo: 'To do', inProgress: 'In progress', completed: 'Done' };
const STATUSES = Object.keys(STATUS_WORDS) as TaskStatus[];

export function TasksPage({ path }: { path: string }) {
  // Staff: the board and the templates (staff/task-*.tsx); a task's own page is the same for everyone.
  const { staff } = useSignedIn();
  if (staff && path === '/tasks') return <TaskBoard />;
  if (staff && path === '/tasks/templates') return <TaskTemplatesPage />;
  const one = match('/tasks/:id', path);
  if (one) return <TaskPage id={one.id} />;
  if (path !== '/tasks') return <NotFoundPage />;
  return <TaskList />;
}

/**
 * Whether the person marks this task done and reopens it, as the API lets them (`PATCH /v1/tasks/{id}`): a client,
 * a task assigned to it or to its company (not one of the staff's it follows); an admin who sees every company, any;
 * other staff, one assigned to no internal user (a client's, a company's, no one's), to themselves, or that they
 * created. Another internal user's task is read-only to them.
 */
function marks({ person, staff }: SignedIn, task: Task): boolean {
  if (person.type === 'client') return task.internalUserId === undefined && (task.clientId === undefined || task.clientId === person.id);
  if (staff?.role === 'admin' && staff.companyIds === null) return true;
  return (
    task.internalUserId === undefined ||
    task.internalUserId === person.id ||
    (task.creatorType === 'internalUser' && task.createdBy === person.id)
  );
}

/** Whether the task is the person's to do: a client's or its company's; an internal user's own. */
function isMine(signedIn: SignedIn, task: Task): boolean {
  return signedIn.person.type === 'client' ? marks(signedIn, task) : task.internalUserId === signedIn.person.id;
}

/** The names the assignee needs, for staff (a client reads no one else's name). */
function assigneeWanted(person: Person, task: Task): NameWanted[] {
  if (person.type === 'client') return [];
  if (task.internalUserId) return task.internalUserId === person.id ? [] : [['internalUser', task.internalUserId]];
  if (task.clientId) return [['client', task.clientId]];
  return task.companyId ? [['company', task.companyId]] : [];
}

function assignedTo(person: Person, task: Task, name: Names): string {
  if (task.internalUserId === person.id) return 'You';
  if (person.type === 'client') {
    if (task.internalUserId) return 'Our team (you can follow it here)';
    return task.clientId === person.id ? 'You' : 'Your company';
  }
  if (task.internalUserId) return named(name('internalUser', task.internalUserId), 'Another member of staff');
  if (task.clientId) return named(name('client', task.clientId), 'A client no longer listed');
  return task.companyId ? named(name('company', task.companyId), 'A company no longer listed', ' (the company)') : 'No one';
}

/** A name looked up: "…" while asked, `gone` when the person may not read it. */
const named = (found: string | null | undefined, gone: string, after = '') =>
  found === undefined ? '…' : found === null ? gone : `${found}${after}`;

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
  const signedIn = useSignedIn();
  const { person, workspace } = signedIn;
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
  const name = useNames(
    person,
    rows.flatMap((task) => assigneeWanted(person, task)),
  );
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
              <td data-label="Assigned to">{assignedTo(person, task, name)}</td>
              <td class="actions">
                {marks(signedIn, task) ? (
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
        <PageHeading title={loaded.error && !loaded.loading ? 'Task not available' : 'Task'} context={workspace.name} />
        {loaded.error && !loaded.loading ? <LoadFailed error={loaded.error} retry={loaded.reload} /> : <Loading>Loading the task…</Loading>}
        <p>
          <Link href="/tasks">All tasks</Link>
        </p>
      </>
    );
  }
  return <TaskDetails task={task} onChange={setChanged} />;
}

function TaskDetails({ task, onChange }: { task: Task; onChange: (task: Task) => void }) {
  const signedIn = useSignedIn();
  const { person, workspace } = signedIn;
  const name = useNames(person, assigneeWanted(person, task));
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
        <dd>{assignedTo(person, task, name)}</dd>
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
      {marks(signedIn, task) ? (
        <div class="actions">
          <button type="button" onClick={mark} disabled={action.busy}>
            {markLabel(task)}
          </button>
        </div>
      ) : (
        <p class="hint">
          {person.type === 'client'
            ? 'Our team does this task; you can follow it here.'
            : 'Another member of staff does this task: it is theirs to mark done, or its creator’s.'}
        </p>
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
export async function tasksWaiting(signedIn: SignedIn): Promise<Waiting> {
  const { person } = signedIn;
  const open = (status: TaskStatus) =>
    everyItem((nextToken) =>
      ok(
        v1.GET('/v1/tasks', {
          params: { query: { status, limit: 1000, nextToken, ...(person.type === 'client' ? {} : { internalUserId: person.id }) } },
        }),
      ),
    );
  const tasks = (await Promise.all([open('todo'), open('inProgress')])).flat();
  const count = tasks.filter((task) => !task.isArchived && isMine(signedIn, task)).length;
  return { section: '/tasks', count, says: counted(count, 'task to do', 'tasks to do') };
}
