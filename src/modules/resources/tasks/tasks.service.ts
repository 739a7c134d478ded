import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, isClient, isInternalUser } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import { resolveMembers } from '../directory/index.js';
import { findInternalUser } from '../internal-users/index.js';
import * as repo from './tasks.repository.js';
import type { Task, TaskCreate, TaskTemplate, TaskTemplateCreate, TaskTemplateUpdate, TaskUpdate } from './tasks.schemas.js';

export const listTasks = listAs(repo.listTasks);
export const listTaskTemplates = listAs(repo.listTemplates);

export async function getTask(database: Database, caller: Caller, id: string): Promise<Task> {
  return orNotFound(await repo.findTask(database.db, caller.access, id), 'Task');
}

export async function getTaskTemplate(database: Database, caller: Caller, id: string): Promise<TaskTemplate> {
  return orNotFound(await repo.findTemplate(database.db, caller.access, id), 'Task template');
}

/** A task's assignee: an internal user alone, or a client in a company, or a company alone; `{}` is none. */
type Assignee = Pick<Task, 'internalUserId' | 'clientId' | 'companyId'>;
const NO_VIEWER: Task['viewers'] = [];

/** The task with this assignee instead of its own. */
function assignedTo(task: Task, assignee: Assignee): Task {
  const { internalUserId: _user, clientId: _client, companyId: _company, ...rest } = task;
  return { ...rest, ...assignee };
}

/**
 * The assignee the input names, when it names one: an internal user alone, or a client in a company, or a
 * company (resolveMembers: each one the caller sees, the client in the company). Undefined when the input names
 * none or a field fails (its problem added).
 */
async function assigneeOf(
  database: Database,
  caller: Caller,
  input: { internalUserId?: string; clientId?: string; companyId?: string },
  problems: FieldProblem[],
): Promise<Assignee | undefined> {
  if (input.internalUserId !== undefined) {
    if (input.clientId !== undefined || input.companyId !== undefined) {
      problems.push({
        path: 'body.internalUserId',
        message: 'goes alone: a task has one assignee (an internal user, a client or a company)',
      });
      return undefined;
    }
    const user = await findInternalUser(database.db, caller.access, input.internalUserId);
    if (!user) {
      problems.push({ path: 'body.internalUserId', message: 'is not an internal user of this workspace' });
      return undefined;
    }
    return { internalUserId: user.id };
  }
  if (input.clientId === undefined && input.companyId === undefined) return undefined;
  const members = await resolveMembers(
    database,
    caller,
    {
      clients: input.clientId === undefined ? [] : [{ id: input.clientId, path: 'body.clientId' }],
      companyId: input.companyId,
      companyPath: 'body.companyId',
    },
    problems,
  );
  if (!members) return undefined;
  const clientId = members.clientIds[0];
  return clientId === undefined ? { companyId: members.companyId } : { clientId, companyId: members.companyId };
}

/** The viewer given (an array of at most one, or one object; `[]` is none), checked like an assignee. */
async function viewerOf(
  database: Database,
  caller: Caller,
  given: TaskCreate['viewers'],
  problems: FieldProblem[],
): Promise<Task['viewers'] | undefined> {
  if (given === undefined) return undefined;
  const [viewer, path] = Array.isArray(given) ? [given[0], 'body.viewers.0'] : [given, 'body.viewers'];
  if (viewer === undefined) return NO_VIEWER;
  const members = await resolveMembers(
    database,
    caller,
    {
      clients: viewer.clientId === undefined ? [] : [{ id: viewer.clientId, path: `${path}.clientId` }],
      companyId: viewer.companyId,
      companyPath: `${path}.companyId`,
    },
    problems,
  );
  if (!members) return undefined;
  const clientId = members.clientIds[0];
  return [clientId === undefined ? { companyId: members.companyId } : { clientId, companyId: members.companyId }];
}

type ActorType = Task['creatorType'];

/** Who does it, as tasks record it: the session's end user, else the API key. */
function doerOf(caller: Caller): { id: string; type: ActorType } {
  const { actor } = caller;
  if (actor.actorType === 'internalUser' && actor.actorId) return { id: actor.actorId, type: 'internalUser' };
  if (actor.actorType === 'clientUser' && actor.actorId) return { id: actor.actorId, type: 'client' };
  return { id: actor.apiKeyRef ?? 'system', type: 'apiKey' };
}

/**
 * Who may change (or delete) a task it sees. Keys and bearer tokens (apps act for their users), and an admin
 * with access to every company: any. Any other internal user (staff, or an admin limited to some companies):
 * a task it created or is assigned to, or one assigned to no internal user (a client or a company it sees, or
 * no one); another internal user's task is that user's, its creator's or a full admin's to change. A client
 * (a session, or signed in) changes no task here: it only completes and reopens its own (`clientOwns`).
 */
function mayChange(caller: Caller, task: Task): boolean {
  const { principal } = caller;
  if (isClient(principal)) return false;
  if (!isInternalUser(principal)) return true;
  if (principal.role === 'admin' && principal.companyAccessList === null) return true;
  const me = principal.internalUserId;
  return task.internalUserId === undefined || task.internalUserId === me || (task.creatorType === 'internalUser' && task.createdBy === me);
}

/**
 * A task a client completes and reopens: one assigned to it, or to one of its companies as a whole (a client sees
 * no other company's), not one assigned to an internal user that it only views.
 */
function clientOwns(clientId: string, task: Task): boolean {
  return task.internalUserId === undefined && (task.clientId === undefined ? task.companyId !== undefined : task.clientId === clientId);
}

const CLIENT_CHANGES_STATUS = 'A client changes only the status of a task assigned to it or to its company (completing or reopening it).';

const OTHERS_TASK =
  'is assigned to another internal user: only that user, the task’s creator or an admin with access to every company may change it';

const VIEWER_RULE = 'is allowed only on a task assigned to an internal user';

const taskSubject = (task: Task) => ({
  object: 'task',
  id: task.id,
  data: task,
  companyId: task.companyId ?? task.viewers[0]?.companyId ?? null,
});

function recordTaskEvent(
  work: UnitOfWork,
  caller: Caller,
  task: Task,
  eventType: 'taskCreated' | 'taskCompleted' | 'taskArchived' | 'taskDeleted',
) {
  const verb = { taskCreated: 'created', taskCompleted: 'completed', taskArchived: 'archived', taskDeleted: 'deleted' }[eventType];
  recordAudit(work, caller.actor, {
    eventType,
    description: `Task "${task.name}" ${verb}`,
    context: { taskId: task.id, ...(task.parentTaskId ? { parentTaskId: task.parentTaskId } : {}) },
    subject: taskSubject(task),
  });
}

/**
 * Creates a task (taskCreated; taskCompleted too when created completed). From a template: its name and
 * description unless given, and one subtask per subtask template, with the same assignee (each its taskCreated).
 * Every failing field is named in one 400; nothing is written then. A subtask goes only under a task the caller
 * may change (403 otherwise).
 */
export async function createTask(database: Database, caller: Caller, input: TaskCreate): Promise<Task> {
  const problems: FieldProblem[] = [];
  const access = caller.access;
  const [template, parent, assignee, viewers] = await Promise.all([
    input.templateId === undefined ? undefined : repo.findTemplate(database.db, access, input.templateId),
    input.parentTaskId === undefined ? undefined : repo.findTask(database.db, access, input.parentTaskId),
    assigneeOf(database, caller, input, problems),
    viewerOf(database, caller, input.viewers, problems),
  ]);
  if (input.templateId !== undefined && !template)
    problems.push({ path: 'body.templateId', message: 'is not a task template of this workspace' });
  if (input.parentTaskId !== undefined && !parent) problems.push({ path: 'body.parentTaskId', message: 'is not a task of this workspace' });
  const name = input.name ?? template?.name;
  if (name === undefined) problems.push({ path: 'body.name', message: 'is required unless templateId names a template' });
  if (viewers && viewers.length > 0 && assignee?.internalUserId === undefined)
    problems.push({ path: 'body.viewers', message: VIEWER_RULE });
  if (problems.length > 0 || name === undefined) throw errors.invalidFields(problems);
  if (parent && !mayChange(caller, parent))
    throw errors.forbidden(`body.parentTaskId: the parent task ${OTHERS_TASK} (or add subtasks to it).`);

  const at = isoAt(caller.actor.at);
  const doer = doerOf(caller);
  const status = input.status ?? 'todo';
  const base = {
    object: 'task' as const,
    ...assignee,
    viewers: NO_VIEWER,
    createdBy: doer.id,
    creatorType: doer.type,
    source: caller.actor.source,
    isArchived: false,
    isDeleted: false,
    createdDate: at,
    updatedDate: at,
  };
  const task: Task = {
    ...base,
    id: newRowId(),
    name,
    description: input.description ?? template?.description ?? '',
    status,
    viewers: viewers ?? NO_VIEWER,
    ...(parent ? { parentTaskId: parent.id } : {}),
    ...(template ? { templateId: template.id } : {}),
    ...(input.dueDate === undefined ? {} : { dueDate: isoAt(Date.parse(input.dueDate)) }),
    ...(status === 'completed' ? { completedBy: doer.id, completedByUserType: doer.type, completedDate: at } : {}),
  };
  const subtasks: Task[] = (template?.subTaskTemplates ?? []).map((sub) => ({
    ...base,
    id: newRowId(),
    name: sub.name,
    description: sub.description,
    status: 'todo',
    parentTaskId: task.id,
  }));
  await unitOfWork(database, async (work) => {
    for (const created of [task, ...subtasks]) {
      repo.insertTask(work, access, created);
      recordTaskEvent(work, caller, created, 'taskCreated');
    }
    if (status === 'completed') recordTaskEvent(work, caller, task, 'taskCompleted');
  });
  return task;
}

/** The task with these fields set (a field undefined is removed: tasks leave out what has no value). */
function withFields(task: Task, fields: Partial<Task>): Task {
  const next: Record<string, unknown> = { ...task, ...fields };
  for (const key of Object.keys(fields)) if (next[key] === undefined) delete next[key];
  return next as Task;
}

/**
 * Changes the fields given (PATCH). Naming any of internalUserId, clientId and companyId replaces the assignee;
 * moving the task away from an internal user removes its viewer. taskUpdated with the previous values of what
 * changed (nothing changed: no event); taskCompleted when the status becomes completed, taskArchived when archived.
 * Only by a caller that may change the task (mayChange; 403 otherwise); a client only the status of its own
 * (clientOwns), which its portal's tasks page completes and reopens.
 */
export async function updateTask(database: Database, caller: Caller, id: string, input: TaskUpdate): Promise<Task> {
  const client = isClient(caller.principal) ? caller.principal.clientId : undefined;
  if (client !== undefined && Object.keys(input).some((field) => field !== 'status')) throw errors.forbidden(CLIENT_CHANGES_STATUS);
  const problems: FieldProblem[] = [];
  // Checked before the transaction: the directory reads through the shared handle.
  const [assignee, viewers] = await Promise.all([
    assigneeOf(database, caller, input, problems),
    viewerOf(database, caller, input.viewers, problems),
  ]);
  if (problems.length > 0) throw errors.invalidFields(problems);
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findTask(work.db, caller.access, id), 'Task');
      if (client !== undefined) {
        if (!clientOwns(client, previous)) throw errors.forbidden(CLIENT_CHANGES_STATUS);
      } else if (!mayChange(caller, previous)) throw errors.forbidden(`This task ${OTHERS_TASK}.`);
      const at = isoAt(caller.actor.at);
      const doer = doerOf(caller);
      let next: Task = { ...previous };
      if (input.name !== undefined) next.name = input.name;
      if (input.description !== undefined) next.description = input.description;
      if (assignee) next = assignedTo(next, assignee);
      if (viewers) next.viewers = viewers;
      else if (next.internalUserId === undefined) next.viewers = NO_VIEWER;
      if (next.viewers.length > 0 && next.internalUserId === undefined) throw errors.invalidField('body.viewers', VIEWER_RULE);
      if (input.dueDate !== undefined)
        next = withFields(next, { dueDate: input.dueDate === null ? undefined : isoAt(Date.parse(input.dueDate)) });
      if (input.status !== undefined && input.status !== previous.status) {
        next.status = input.status;
        next = withFields(
          next,
          input.status === 'completed'
            ? { completedBy: doer.id, completedByUserType: doer.type, completedDate: at }
            : { completedBy: undefined, completedByUserType: undefined, completedDate: undefined },
        );
      }
      if (input.isArchived !== undefined && input.isArchived !== previous.isArchived) {
        next = withFields(
          next,
          input.isArchived
            ? { isArchived: true, archivedBy: doer.id, archivedDate: at }
            : { isArchived: false, archivedBy: undefined, archivedDate: undefined },
        );
      }
      const before: Record<string, unknown> = previous;
      const after: Record<string, unknown> = next;
      // Every field that changed, a removed one (dueDate) included; null for one that was absent.
      const previousAttributes: Record<string, unknown> = {};
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (key !== 'updatedDate' && JSON.stringify(after[key]) !== JSON.stringify(before[key]))
          previousAttributes[key] = before[key] ?? null;
      }
      if (Object.keys(previousAttributes).length === 0) return previous;
      const task: Task = { ...next, updatedDate: at };
      repo.updateTask(work, caller.access, task);
      recordAudit(work, caller.actor, {
        eventType: 'taskUpdated',
        description: `Task "${task.name}" updated`,
        context: { taskId: task.id },
        previousAttributes,
        subject: taskSubject(task),
      });
      if (task.status === 'completed' && previous.status !== 'completed') recordTaskEvent(work, caller, task, 'taskCompleted');
      if (task.isArchived && !previous.isArchived) recordTaskEvent(work, caller, task, 'taskArchived');
      return task;
    },
    { transaction: true },
  );
}

/**
 * Deletes a task and its subtasks (theirs too): a taskDeleted for each. A delete reaches only what the caller
 * sees and may change: a subtask it does not see, or may not change (mayChange), makes it a 403, and nothing
 * is deleted.
 */
export async function deleteTask(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const task = orNotFound(await repo.findTask(work.db, caller.access, id), 'Task');
      if (!mayChange(caller, task)) throw errors.forbidden(`This task ${OTHERS_TASK}.`);
      const descendants = await repo.descendants(work.db, caller.access, task.id);
      const unseen = descendants.filter((d) => !d.visible).length;
      if (unseen > 0) {
        throw errors.forbidden(
          `Deleting this task would also delete ${unseen === 1 ? 'a subtask' : `${unseen} subtasks`} you cannot see; nothing was deleted.`,
        );
      }
      const others = descendants.filter((d) => !mayChange(caller, d.task)).length;
      if (others > 0) {
        throw errors.forbidden(
          `Deleting this task would also delete ${others === 1 ? 'a subtask' : `${others} subtasks`} assigned to another internal user, ` +
            'which only that user, its creator or an admin with access to every company may delete; nothing was deleted.',
        );
      }
      repo.deleteTask(work, caller.access, task.id);
      for (const deleted of [task, ...descendants.map((d) => d.task)]) recordTaskEvent(work, caller, deleted, 'taskDeleted');
      return { id: task.id, object: 'task', deleted: true as const };
    },
    { transaction: true },
  );
}

/** A task template (admin surface and `portal task-templates create`; the specification has no event for templates). */
export async function createTaskTemplate(database: Database, caller: Caller, input: TaskTemplateCreate): Promise<TaskTemplate> {
  const at = isoAt(caller.actor.at);
  const template: TaskTemplate = {
    id: newRowId(),
    object: 'taskTemplate',
    name: input.name,
    description: input.description ?? '',
    createdDate: at,
    subTaskTemplates: subTemplatesOf(input.subTaskTemplates ?? [], at),
  };
  await unitOfWork(database, async (work) => repo.insertTemplate(work, caller.access, template));
  return template;
}

/** Subtask templates as given, each a new id made now. */
function subTemplatesOf(given: { name: string; description?: string }[], at: string): TaskTemplate['subTaskTemplates'] {
  return given.map((sub) => ({
    id: newRowId(),
    object: 'taskTemplate',
    name: sub.name,
    description: sub.description ?? '',
    createdDate: at,
  }));
}

/**
 * Changes a template's name, description or subtask templates (those given replace the old ones, new ids); the tasks
 * already made from it keep what they copied. Admins, keys and tokens (the route's policy); no event (as on create).
 */
export async function updateTaskTemplate(database: Database, caller: Caller, id: string, input: TaskTemplateUpdate): Promise<TaskTemplate> {
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findTemplate(work.db, caller.access, id), 'Task template');
      const template: TaskTemplate = {
        ...previous,
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.subTaskTemplates === undefined
          ? {}
          : { subTaskTemplates: subTemplatesOf(input.subTaskTemplates, isoAt(caller.actor.at)) }),
      };
      repo.updateTemplate(work, caller.access, template);
      return template;
    },
    { transaction: true },
  );
}

/** Deletes a template; the tasks made from it stay, without a templateId. */
export async function deleteTaskTemplate(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const template = orNotFound(await repo.findTemplate(work.db, caller.access, id), 'Task template');
      repo.deleteTemplate(work, caller.access, template.id);
      return { id: template.id, object: 'taskTemplate', deleted: true as const };
    },
    { transaction: true },
  );
}
