// The staff's task board (/tasks for an internal user): a column per status (to do, in progress, done), each read
// from the API a page at a time (`GET /v1/tasks?status=…`, nextToken), filtered by assignee on the server; a card moved
// between columns with its buttons (the focus follows it, a live region says where it went), edited in place and
// deleted; a new task. What the person may change is what the API lets them (an admin who sees every company, any
// task; other staff, their own, those they created, and those of no internal user).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Item, Page } from '../../../kit/api.js';
import { CreatePanel, Pager, SearchForm, usePaged } from '../../../kit/list.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { type Person, ok, v1 } from '../api.js';
import { type NameWanted, type Names, useNames } from '../names.js';
import { Link } from '../router.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Status, latest, useAction } from '../../../kit/ui.js';
import { formatDue } from '../work.js';
import { type Assignee, AssigneeChooser, assigneeOf } from './task-assignee.js';

type Task = Item<'/v1/tasks'>;
type TaskStatus = Task['status'];

const STATUS_WORDS: Record<TaskStatus, string> = { todo: 'To do', inProgress: 'In progress', completed: 'Done' };
const STATUSES = Object.keys(STATUS_WORDS) as TaskStatus[];
const COLUMN_PAGE = 20;

/** Whether the API lets this member of staff change (move, edit, delete) the task. */
function mayChange({ person, staff }: SignedIn, task: Task): boolean {
  if (staff?.role === 'admin' && staff.companyIds === null) return true;
  return (
    task.internalUserId === undefined ||
    task.internalUserId === person.id ||
    (task.creatorType === 'internalUser' && task.createdBy === person.id)
  );
}

function wantedFor(person: Person, task: Task): NameWanted[] {
  if (task.internalUserId) return task.internalUserId === person.id ? [] : [['internalUser', task.internalUserId]];
  if (task.clientId) return [['client', task.clientId]];
  return task.companyId ? [['company', task.companyId]] : [];
}

function assigneeName(person: Person, task: Task, name: Names): string {
  const say = (found: string | null | undefined, gone: string) => (found === undefined ? '…' : found === null ? gone : found);
  if (task.internalUserId === person.id) return 'You';
  if (task.internalUserId) return say(name('internalUser', task.internalUserId), 'Another member of staff');
  if (task.clientId) return say(name('client', task.clientId), 'A client no longer listed');
  if (task.companyId) return `${say(name('company', task.companyId), 'A company no longer listed')} (the company)`;
  return 'No one';
}

/** A date field's day as the API's due date: midnight UTC (shown as that day wherever the reader is). */
export const dueOf = (day: string) => (day ? `${day}T00:00:00.000Z` : undefined);
const dayOf = (due: string | undefined) => (due ? due.slice(0, 10) : '');

/** What the board's filter asks of the server: the assignee's id, one of three. */
type Filter = Assignee;

export function TaskBoard() {
  const signedIn = useSignedIn();
  const { person, workspace } = signedIn;
  const [filter, setFilter] = useState<Filter>({});
  const [filterError, setFilterError] = useState<string | null>(null);
  // Bumped by every change: each column reads its first page again; `focus` is the card moved (its new column focuses it).
  const [round, setRound] = useState(0);
  const [focus, setFocus] = useState<{ id: string; status: TaskStatus; round: number } | null>(null);
  const action = useAction();
  const [said, setSaid] = useState<{ done: string | null; doneAt: number }>({ done: null, doneAt: 0 });
  const changed = (next?: { id: string; status: TaskStatus }) => {
    const nextRound = round + 1;
    setRound(nextRound);
    setFocus(next ? { ...next, round: nextRound } : null);
  };
  const move = (task: Task, status: TaskStatus) =>
    void action.run(async () => {
      const moved = await ok(v1.PATCH('/v1/tasks/{id}', { params: { path: { id: task.id } }, body: { status } }));
      changed({ id: moved.id, status: moved.status });
      return `“${moved.name}” moved to ${STATUS_WORDS[moved.status]}.`;
    });
  const remove = (task: Task) =>
    action.runIfConfirmed(`Delete the task “${task.name}”${task.parentTaskId ? '' : ' and its steps'}?`, async () => {
      await ok(v1.DELETE('/v1/tasks/{id}', { params: { path: { id: task.id } } }));
      changed();
      return `“${task.name}” was deleted.`;
    });
  const filtered = Object.keys(filter).length > 0;
  return (
    <>
      <PageHeading title="Tasks" context={workspace.name} />
      <p>
        Every task you can see, by status. <Link href="/tasks/templates">Task templates</Link>
      </p>
      <SearchForm
        label="Tasks"
        submitLabel="Filter"
        onSearch={(data) => {
          const chosen = assigneeOf(data, person.id);
          if (chosen === undefined) setFilterError('Choose who, or Anyone.');
          else {
            setFilterError(null);
            setFilter(chosen);
          }
        }}
        buttons={
          filtered ? (
            <button type="reset" class="secondary" onClick={() => setFilter({})}>
              Show everyone’s
            </button>
          ) : null
        }
      >
        <AssigneeChooser legend="Assigned to" none="Anyone" />
        {filterError ? <p class="field-error">{filterError}</p> : null}
      </SearchForm>
      <Status>{latest(action, said)}</Status>
      <ErrorMessage error={action.error} focus />
      <div class="task-board">
        {STATUSES.map((status) => (
          <TaskColumn
            key={status}
            status={status}
            filter={filter}
            round={round}
            focus={focus?.status === status ? focus : null}
            focused={() => setFocus(null)}
            busy={action.busy}
            move={move}
            remove={remove}
            edited={(message) => {
              changed();
              setSaid({ done: message, doneAt: performance.now() });
            }}
          />
        ))}
      </div>
      <NewTask created={() => changed()} />
    </>
  );
}

function TaskColumn({
  status,
  filter,
  round,
  focus,
  focused,
  busy,
  move,
  remove,
  edited,
}: {
  status: TaskStatus;
  filter: Filter;
  round: number;
  focus: { id: string; round: number } | null;
  focused: () => void;
  busy: boolean;
  move: (task: Task, status: TaskStatus) => void;
  remove: (task: Task) => void;
  edited: (message: string) => void;
}) {
  const signedIn = useSignedIn();
  const { person } = signedIn;
  const list = usePaged(
    async (nextToken) => ({
      ...(await ok(v1.GET('/v1/tasks', { params: { query: { status, limit: COLUMN_PAGE, nextToken, ...filter } } }))),
      round,
    }),
    [status, JSON.stringify(filter), round],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const section = useRef<HTMLElement>(null);
  const tasks = list.data?.data ?? [];
  const name = useNames(
    person,
    tasks.flatMap((task) => wantedFor(person, task)),
  );
  const id = `column-${status}`;
  // The card moved here gets the focus once this column has read the round that moved it; not on this page: the heading.
  useEffect(() => {
    const read = list.data as (Page<Task> & { round: number }) | undefined;
    if (!focus || list.loading || read?.round !== focus.round) return;
    // Looked for in this column only: the column it left may still show it until it reads its page again.
    const card = section.current?.querySelector<HTMLElement>(`[data-task-id="${CSS.escape(focus.id)}"]`);
    (card ?? heading.current)?.focus();
    focused();
  }, [focus, list.loading, list.data]);
  return (
    <section class="task-column" aria-labelledby={id} ref={section}>
      <h2 id={id} ref={heading} tabIndex={-1}>
        {STATUS_WORDS[status]}
      </h2>
      {list.loading && !list.data ? <Loading>Loading {STATUS_WORDS[status].toLowerCase()}…</Loading> : null}
      {list.error ? <LoadFailed error={list.error} retry={list.reload} /> : null}
      {list.data && tasks.length === 0 ? <p class="empty">No task here.</p> : null}
      {tasks.length > 0 ? (
        <ul class="task-cards">
          {tasks.map((task) => (
            <li key={task.id} data-task-id={task.id} tabIndex={-1} class="task-card" aria-label={task.name}>
              {editing === task.id ? (
                <EditTask
                  task={task}
                  close={(message) => {
                    setEditing(null);
                    if (message) edited(message);
                  }}
                />
              ) : (
                <>
                  <p class="task-name">
                    <Link href={`/tasks/${encodeURIComponent(task.id)}`}>{task.name}</Link>
                  </p>
                  <p class="task-meta">
                    {task.dueDate ? `Due ${formatDue(task.dueDate)}` : 'No due date'} · {assigneeName(person, task, name)}
                  </p>
                  {task.parentTaskId ? <p class="hint">A step of another task</p> : null}
                  {task.isArchived ? <p class="hint">Archived</p> : null}
                  {mayChange(signedIn, task) ? (
                    <div class="actions">
                      {STATUSES.filter((to) => to !== task.status).map((to) => (
                        <button
                          key={to}
                          type="button"
                          class="secondary"
                          disabled={busy}
                          onClick={() => move(task, to)}
                          aria-label={`Move to ${STATUS_WORDS[to]}: ${task.name}`}
                        >
                          Move to {STATUS_WORDS[to]}
                        </button>
                      ))}
                      <button type="button" class="secondary" onClick={() => setEditing(task.id)} aria-label={`Edit: ${task.name}`}>
                        Edit
                      </button>
                      <button type="button" class="danger" disabled={busy} onClick={() => remove(task)} aria-label={`Delete: ${task.name}`}>
                        Delete
                      </button>
                    </div>
                  ) : (
                    <p class="hint">Another member of staff’s task.</p>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <Pager list={list} label={STATUS_WORDS[status]} />
    </section>
  );
}

/** A card's fields changed in place (PATCH: only what changed is sent; the assignee only when another is chosen). */
function EditTask({ task, close }: { task: Task; close: (message: string | null) => void }) {
  const { person } = useSignedIn();
  const action = useAction();
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLElement>('input')?.focus(), []);
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    void action.run(async () => {
      const assignee = assigneeOf(data, person.id);
      if (assignee === undefined) throw new Error('Choose who the task is for, or keep it as it is.');
      const day = String(data.get('dueDate') ?? '');
      const body = {
        name: String(data.get('name') ?? '').trim(),
        description: String(data.get('description') ?? ''),
        ...(day === dayOf(task.dueDate) ? {} : { dueDate: dueOf(day) ?? null }),
        ...assignee,
      };
      const saved = await ok(v1.PATCH('/v1/tasks/{id}', { params: { path: { id: task.id } }, body }));
      close(`“${saved.name}” was saved.`);
    });
  };
  return (
    <form class="inline-form" onSubmit={submit} ref={form} aria-label={`Edit ${task.name}`}>
      <ErrorMessage error={action.error} focus />
      <Field label="Name" name="name" error={action.error}>
        {(props) => <input {...props} required maxLength={255} defaultValue={task.name} autocomplete="off" />}
      </Field>
      <Field label="Description" name="description" error={action.error}>
        {(props) => <textarea {...props} rows={3} maxLength={10_000} defaultValue={task.description} />}
      </Field>
      <Field label="Due date" name="dueDate" error={action.error} hint="Empty: no due date">
        {(props) => <input {...props} type="date" defaultValue={dayOf(task.dueDate)} />}
      </Field>
      <AssigneeChooser legend="Assigned to" none="Keep as it is" error={action.error} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="secondary" onClick={() => close(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A new task: name, description, due date and who it is for; an Idempotency-Key per create (sent again unanswered: the same). */
function NewTask({ created }: { created: () => void }) {
  const { person } = useSignedIn();
  const action = useAction();
  const key = useOnceKey();
  return (
    <>
      <CreatePanel
        id="new-task"
        title="New task"
        submitLabel={action.busy ? 'Creating…' : 'Create the task'}
        action={action}
        create={async (data) => {
          const assignee = assigneeOf(data, person.id);
          if (assignee === undefined) throw new Error('Choose who the task is for, or No one.');
          const description = String(data.get('description') ?? '');
          const due = dueOf(String(data.get('dueDate') ?? ''));
          const body = {
            name: String(data.get('name') ?? '').trim(),
            ...(description ? { description } : {}),
            ...(due ? { dueDate: due } : {}),
            ...assignee,
          };
          const task = await once(key, JSON.stringify(body), (k) =>
            ok(v1.POST('/v1/tasks', { params: { header: { 'idempotency-key': k } }, body })),
          );
          created();
          return `“${task.name}” was created in To do.`;
        }}
      >
        <Field label="Name" name="name" error={action.error}>
          {(props) => <input {...props} required maxLength={255} autocomplete="off" />}
        </Field>
        <Field label="Description" name="description" error={action.error}>
          {(props) => <textarea {...props} rows={3} maxLength={10_000} />}
        </Field>
        <Field label="Due date" name="dueDate" error={action.error}>
          {(props) => <input {...props} type="date" />}
        </Field>
        <AssigneeChooser legend="Assigned to" none="No one" error={action.error} />
      </CreatePanel>
      <Status>{action.done}</Status>
    </>
  );
}
