import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../audit/index.js';
import type { Database } from '../../db/database.js';
import { listAs } from '../../db/paging.js';
import type { TaskActorType, TasksTable } from '../../db/schema.js';
import { type UnitOfWork, unitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../lib/errors.js';
import { resolveMembers } from '../directory/index.js';
import { findInternalUser } from '../internal-users/index.js';
import * as repo from './tasks.repository.js';
import type { Task, TaskCreate, TaskTemplate, TaskTemplateCreate, TaskUpdate } from './tasks.schemas.js';

export const listTasks = listAs(repo.listTasks);
export const listTaskTemplates = listAs(repo.listTemplates);

export async function getTask(database: Database, caller: Caller, id: string): Promise<Task> {
  return repo.toTask(orNotFound(await repo.findTaskRow(database.db, caller.access, id), 'Task'));
}

export async function getTaskTemplate(database: Database, caller: Caller, id: string): Promise<TaskTemplate> {
  return orNotFound(await repo.findTemplate(database.db, caller.access, id), 'Task template');
}

type Assignee = Pick<TasksTable, 'internal_user_id' | 'client_id' | 'company_id'>;
type Viewer = Pick<TasksTable, 'viewer_client_id' | 'viewer_company_id'>;
const NO_VIEWER: Viewer = { viewer_client_id: null, viewer_company_id: null };

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
    const user = await findInternalUser(database.db, caller.access, input.internalUserId.toLowerCase());
    if (!user) {
      problems.push({ path: 'body.internalUserId', message: 'is not an internal user of this workspace' });
      return undefined;
    }
    return { internal_user_id: user.id, client_id: null, company_id: null };
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
  return members && { internal_user_id: null, client_id: members.clientIds[0] ?? null, company_id: members.companyId };
}

/** The viewer given (an array of at most one, or one object; `[]` is none), checked like an assignee. */
async function viewerOf(
  database: Database,
  caller: Caller,
  given: TaskCreate['viewers'],
  problems: FieldProblem[],
): Promise<Viewer | undefined> {
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
  return members && { viewer_client_id: members.clientIds[0] ?? null, viewer_company_id: members.companyId };
}

/** Who does it, as tasks record it: the session's end user, else the API key. */
function doerOf(caller: Caller): { id: string; type: TaskActorType } {
  const { actor } = caller;
  if (actor.actorType === 'internalUser' && actor.actorId) return { id: actor.actorId, type: 'internalUser' };
  if (actor.actorType === 'clientUser' && actor.actorId) return { id: actor.actorId, type: 'client' };
  return { id: actor.apiKeyRef ?? 'system', type: 'apiKey' };
}

const VIEWER_RULE = 'is allowed only on a task assigned to an internal user';

const taskSubject = (row: TasksTable, task: Task) => ({
  object: 'task',
  id: task.id,
  data: task,
  companyId: row.company_id ?? row.viewer_company_id,
});

function recordTaskEvent(
  work: UnitOfWork,
  caller: Caller,
  row: TasksTable,
  eventType: 'taskCreated' | 'taskCompleted' | 'taskArchived' | 'taskDeleted',
) {
  const task = repo.toTask(row);
  const verb = { taskCreated: 'created', taskCompleted: 'completed', taskArchived: 'archived', taskDeleted: 'deleted' }[eventType];
  recordAudit(work, caller.actor, {
    eventType,
    description: `Task "${task.name}" ${verb}`,
    context: { taskId: task.id, ...(task.parentTaskId ? { parentTaskId: task.parentTaskId } : {}) },
    subject: taskSubject(row, task),
  });
}

/**
 * Creates a task (taskCreated; taskCompleted too when created completed). From a template: its name and
 * description unless given, and one subtask per subtask template, with the same assignee (each its taskCreated).
 * Every failing field is named in one 400; nothing is written then.
 */
export async function createTask(database: Database, caller: Caller, input: TaskCreate): Promise<Task> {
  const problems: FieldProblem[] = [];
  const access = caller.access;
  const [template, parent, assignee, viewer] = await Promise.all([
    input.templateId === undefined ? undefined : repo.findTemplate(database.db, access, input.templateId.toLowerCase()),
    input.parentTaskId === undefined ? undefined : repo.findTaskRow(database.db, access, input.parentTaskId.toLowerCase()),
    assigneeOf(database, caller, input, problems),
    viewerOf(database, caller, input.viewers, problems),
  ]);
  if (input.templateId !== undefined && !template)
    problems.push({ path: 'body.templateId', message: 'is not a task template of this workspace' });
  if (input.parentTaskId !== undefined && !parent) problems.push({ path: 'body.parentTaskId', message: 'is not a task of this workspace' });
  const name = input.name ?? template?.name;
  if (name === undefined) problems.push({ path: 'body.name', message: 'is required unless templateId names a template' });
  if (viewer && viewer !== NO_VIEWER && assignee?.internal_user_id == null) problems.push({ path: 'body.viewers', message: VIEWER_RULE });
  if (problems.length > 0 || name === undefined) throw errors.invalidFields(problems);

  const at = isoAt(caller.actor.at);
  const doer = doerOf(caller);
  const status = input.status ?? 'todo';
  const base = {
    workspace_id: access.workspaceId,
    template_id: null,
    internal_user_id: null,
    client_id: null,
    company_id: null,
    ...assignee,
    ...NO_VIEWER,
    due_date: null,
    created_by: doer.id,
    creator_type: doer.type,
    source: caller.actor.source,
    is_archived: 0,
    archived_by: null,
    archived_at: null,
    completed_by: null,
    completed_by_type: null,
    completed_at: null,
    created_at: at,
    updated_at: at,
  } satisfies Partial<TasksTable>;
  const row: TasksTable = {
    ...base,
    ...viewer,
    id: randomUUID(),
    name,
    description: input.description ?? template?.description ?? '',
    status,
    parent_task_id: parent?.id ?? null,
    template_id: template?.id ?? null,
    due_date: input.dueDate === undefined ? null : isoAt(Date.parse(input.dueDate)),
    ...(status === 'completed' ? { completed_by: doer.id, completed_by_type: doer.type, completed_at: at } : {}),
  };
  const subtasks: TasksTable[] = (template?.subTaskTemplates ?? []).map((sub) => ({
    ...base,
    id: randomUUID(),
    name: sub.name,
    description: sub.description,
    status: 'todo',
    parent_task_id: row.id,
  }));
  await unitOfWork(database, async (work) => {
    for (const task of [row, ...subtasks]) {
      repo.insertTask(work, task);
      recordTaskEvent(work, caller, task, 'taskCreated');
    }
    if (status === 'completed') recordTaskEvent(work, caller, row, 'taskCompleted');
  });
  return repo.toTask(row);
}

/**
 * Changes the fields given (PATCH). Naming any of internalUserId, clientId and companyId replaces the assignee;
 * moving the task away from an internal user removes its viewer. taskUpdated with the previous values of what
 * changed (nothing changed: no event); taskCompleted when the status becomes completed, taskArchived when archived.
 */
export async function updateTask(database: Database, caller: Caller, id: string, input: TaskUpdate): Promise<Task> {
  const problems: FieldProblem[] = [];
  const namesAssignee = input.internalUserId !== undefined || input.clientId !== undefined || input.companyId !== undefined;
  // Checked before the transaction: the directory reads through the shared handle.
  const [assignee, viewer] = await Promise.all([
    assigneeOf(database, caller, input, problems),
    viewerOf(database, caller, input.viewers, problems),
  ]);
  if (problems.length > 0) throw errors.invalidFields(problems);
  return unitOfWork(
    database,
    async (work) => {
      const row = orNotFound(await repo.findTaskRow(work.db, caller.access, id), 'Task');
      const at = isoAt(caller.actor.at);
      const doer = doerOf(caller);
      const next: TasksTable = { ...row };
      if (input.name !== undefined) next.name = input.name;
      if (input.description !== undefined) next.description = input.description;
      if (namesAssignee && assignee) Object.assign(next, assignee);
      if (viewer) Object.assign(next, viewer);
      else if (next.internal_user_id === null) Object.assign(next, NO_VIEWER);
      if (next.viewer_company_id !== null && next.internal_user_id === null) throw errors.invalidField('body.viewers', VIEWER_RULE);
      if (input.dueDate !== undefined) next.due_date = input.dueDate === null ? null : isoAt(Date.parse(input.dueDate));
      if (input.status !== undefined && input.status !== row.status) {
        next.status = input.status;
        Object.assign(
          next,
          input.status === 'completed'
            ? { completed_by: doer.id, completed_by_type: doer.type, completed_at: at }
            : { completed_by: null, completed_by_type: null, completed_at: null },
        );
      }
      if (input.isArchived !== undefined && input.isArchived !== (row.is_archived === 1)) {
        Object.assign(
          next,
          input.isArchived
            ? { is_archived: 1, archived_by: doer.id, archived_at: at }
            : { is_archived: 0, archived_by: null, archived_at: null },
        );
      }
      const changed = (Object.keys(next) as (keyof TasksTable)[]).filter((key) => next[key] !== row[key]);
      if (changed.length === 0) return repo.toTask(row);
      next.updated_at = at;
      repo.updateTask(
        work,
        caller.access,
        row.id,
        Object.fromEntries([...changed, 'updated_at'].map((key) => [key, next[key as keyof TasksTable]])),
      );
      const before: Record<string, unknown> = repo.toTask(row);
      const task = repo.toTask(next);
      const after: Record<string, unknown> = task;
      // Every field that changed, a removed one (dueDate) included; null for one that was absent.
      const previousAttributes: Record<string, unknown> = {};
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (key !== 'updatedDate' && JSON.stringify(after[key]) !== JSON.stringify(before[key]))
          previousAttributes[key] = before[key] ?? null;
      }
      recordAudit(work, caller.actor, {
        eventType: 'taskUpdated',
        description: `Task "${task.name}" updated`,
        context: { taskId: task.id },
        previousAttributes,
        subject: taskSubject(next, task),
      });
      if (next.status === 'completed' && row.status !== 'completed') recordTaskEvent(work, caller, next, 'taskCompleted');
      if (next.is_archived === 1 && row.is_archived === 0) recordTaskEvent(work, caller, next, 'taskArchived');
      return task;
    },
    { transaction: true },
  );
}

/** Deletes a task and its subtasks (theirs too): a taskDeleted for each. */
export async function deleteTask(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const row = orNotFound(await repo.findTaskRow(work.db, caller.access, id), 'Task');
      const descendants = await repo.descendantRows(work.db, caller.access, row.id);
      repo.deleteTask(work, caller.access, row.id);
      for (const deleted of [row, ...descendants]) recordTaskEvent(work, caller, deleted, 'taskDeleted');
      return { id: row.id, object: 'task', deleted: true as const };
    },
    { transaction: true },
  );
}

/** A task template (admin surface and `portal task-templates create`; the specification has no event for templates). */
export async function createTaskTemplate(database: Database, caller: Caller, input: TaskTemplateCreate): Promise<TaskTemplate> {
  const at = isoAt(caller.actor.at);
  const template: TaskTemplate = {
    id: randomUUID(),
    object: 'taskTemplate',
    name: input.name,
    description: input.description ?? '',
    createdDate: at,
    subTaskTemplates: (input.subTaskTemplates ?? []).map((sub) => ({
      id: randomUUID(),
      object: 'taskTemplate',
      name: sub.name,
      description: sub.description ?? '',
      createdDate: at,
    })),
  };
  await unitOfWork(database, async (work) => repo.insertTemplate(work, caller.access, template));
  return template;
}
