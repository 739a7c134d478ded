import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { nonEmpty } from '../../../db/rows.js';
import type { DB, TasksTable, TaskTemplatesTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { SubTaskTemplate, Task, TaskListQuery, TaskTemplate, TaskTemplateListQuery } from './tasks.schemas.js';

/** Tasks' storage: 0/1 `is_archived`, nullable columns left out of the answer. */

function toTask(row: TasksTable): Task {
  const task: Task = {
    id: row.id,
    object: 'task',
    name: row.name,
    description: row.description,
    status: row.status,
    viewers:
      row.viewer_company_id === null
        ? []
        : [
            row.viewer_client_id === null
              ? { companyId: row.viewer_company_id }
              : { clientId: row.viewer_client_id, companyId: row.viewer_company_id },
          ],
    createdBy: row.created_by,
    creatorType: row.creator_type,
    source: row.source,
    isArchived: row.is_archived === 1,
    isDeleted: false,
    createdDate: row.created_at,
    updatedDate: row.updated_at,
  };
  if (row.parent_task_id !== null) task.parentTaskId = row.parent_task_id;
  if (row.template_id !== null) task.templateId = row.template_id;
  if (row.internal_user_id !== null) task.internalUserId = row.internal_user_id;
  if (row.client_id !== null) task.clientId = row.client_id;
  if (row.company_id !== null) task.companyId = row.company_id;
  if (row.due_date !== null) task.dueDate = row.due_date;
  if (row.archived_by !== null) task.archivedBy = row.archived_by;
  if (row.archived_at !== null) task.archivedDate = row.archived_at;
  if (row.completed_by !== null) task.completedBy = row.completed_by;
  if (row.completed_by_type !== null) task.completedByUserType = row.completed_by_type;
  if (row.completed_at !== null) task.completedDate = row.completed_at;
  return task;
}

/** A task as stored: its one viewer in two columns, absent fields null. */
function rowOf(access: Access, task: Task): TasksTable {
  const viewer = task.viewers[0];
  return {
    id: task.id,
    workspace_id: access.workspaceId,
    name: task.name,
    description: task.description,
    status: task.status,
    parent_task_id: task.parentTaskId ?? null,
    template_id: task.templateId ?? null,
    internal_user_id: task.internalUserId ?? null,
    client_id: task.clientId ?? null,
    company_id: task.companyId ?? null,
    viewer_client_id: viewer?.clientId ?? null,
    viewer_company_id: viewer?.companyId ?? null,
    due_date: task.dueDate ?? null,
    created_by: task.createdBy,
    creator_type: task.creatorType,
    source: task.source,
    is_archived: task.isArchived ? 1 : 0,
    archived_by: task.archivedBy ?? null,
    archived_at: task.archivedDate ?? null,
    completed_by: task.completedBy ?? null,
    completed_by_type: task.completedByUserType ?? null,
    completed_at: task.completedDate ?? null,
    created_at: task.createdDate,
    updated_at: task.updatedDate,
  };
}

/**
 * The tasks an access sees. A client session: those assigned to it, or to one of its companies as a whole,
 * and those it (or one of its companies, as a whole) is the viewer of. A principal limited to some companies:
 * those assigned to, or viewed by, one of its companies (or a client in it), and the staff's own tasks (assigned
 * to an internal user, or to no one, with no viewer), which concern no company. Everyone else: the workspace's.
 */
function visibleTo(access: Access) {
  return (eb: ExpressionBuilder<DB, 'tasks'>) => {
    const inWorkspace = eb('tasks.workspace_id', '=', access.workspaceId);
    const companies = nonEmpty(access.companyIds ?? []);
    if (access.clientId) {
      return eb.and([
        inWorkspace,
        eb.or([
          eb('tasks.client_id', '=', access.clientId),
          eb.and([eb('tasks.client_id', 'is', null), eb('tasks.company_id', 'in', companies)]),
          eb('tasks.viewer_client_id', '=', access.clientId),
          eb.and([eb('tasks.viewer_client_id', 'is', null), eb('tasks.viewer_company_id', 'in', companies)]),
        ]),
      ]);
    }
    if (access.companyIds) {
      return eb.and([
        inWorkspace,
        eb.or([
          eb('tasks.company_id', 'in', companies),
          eb('tasks.viewer_company_id', 'in', companies),
          eb.and([eb('tasks.company_id', 'is', null), eb('tasks.viewer_company_id', 'is', null)]),
        ]),
      ]);
    }
    return inWorkspace;
  };
}

/** A page, newest first; each filter has its own index (`(workspace_id, filter, created_at, id)`). */
export function listTasks(db: Kysely<DB>, access: Access, query: TaskListQuery, tokens: PageTokens): Promise<Page<Task>> {
  const { createdBy, parentTaskId, status, clientId, internalUserId, companyId } = query;
  let q = db.selectFrom('tasks').selectAll().where(visibleTo(access));
  if (createdBy !== undefined) q = q.where('created_by', '=', createdBy);
  if (parentTaskId !== undefined) q = q.where('parent_task_id', '=', parentTaskId);
  if (status !== undefined) q = q.where('status', '=', status);
  if (clientId !== undefined) q = q.where('client_id', '=', clientId);
  if (internalUserId !== undefined) q = q.where('internal_user_id', '=', internalUserId);
  if (companyId !== undefined) q = q.where('company_id', '=', companyId);
  const scope = pageScope(access, 'tasks', { createdBy, parentTaskId, status, clientId, internalUserId, companyId });
  return fetchPage(q, 'tasks', query, tokens, scope, toTask);
}

export async function findTask(db: Kysely<DB>, access: Access, id: string): Promise<Task | undefined> {
  const row = await db.selectFrom('tasks').selectAll().where(visibleTo(access)).where('tasks.id', '=', id).executeTakeFirst();
  return row && toTask(row);
}

/**
 * A task's subtasks, theirs, and so on (read level by level; a task is never its own ancestor), each with
 * whether this access sees it: the whole tree a delete would reach, so that one reaching further than the
 * caller sees is refused before anything is written.
 */
export async function descendants(db: Kysely<DB>, access: Access, id: string): Promise<{ task: Task; visible: boolean }[]> {
  const found: TasksTable[] = [];
  let parents = [id];
  while (parents.length > 0) {
    const children = await db
      .selectFrom('tasks')
      .selectAll()
      .where('workspace_id', '=', access.workspaceId)
      .where('parent_task_id', 'in', parents)
      .execute();
    found.push(...children);
    parents = children.map((child) => child.id);
  }
  if (found.length === 0) return [];
  const limited = access.clientId !== null || access.companyIds !== null;
  const seen = limited
    ? new Set(
        (
          await db
            .selectFrom('tasks')
            .select('tasks.id')
            .where(visibleTo(access))
            .where(
              'tasks.id',
              'in',
              found.map((row) => row.id),
            )
            .execute()
        ).map((row) => row.id),
      )
    : undefined;
  return found.map((row) => ({ task: toTask(row), visible: seen === undefined || seen.has(row.id) }));
}

export function insertTask(work: UnitOfWork, access: Access, task: Task): void {
  work.write(work.db.insertInto('tasks').values(rowOf(access, task)));
}

/** Writes every changeable field of a task the access sees. */
export function updateTask(work: UnitOfWork, access: Access, task: Task): void {
  const {
    id: _id,
    workspace_id: _workspace,
    created_at: _created,
    created_by: _by,
    creator_type: _type,
    source: _source,
    ...changes
  } = rowOf(access, task);
  work.write(work.db.updateTable('tasks').set(changes).where(visibleTo(access)).where('tasks.id', '=', task.id));
}

/** Deletes a task the access sees; its subtasks go with it (the foreign key's cascade: the service checked them first). */
export function deleteTask(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('tasks').where(visibleTo(access)).where('tasks.id', '=', id));
}

// ---- templates ----

function toTemplate(row: TaskTemplatesTable): TaskTemplate {
  return {
    id: row.id,
    object: 'taskTemplate',
    name: row.name,
    description: row.description,
    createdDate: row.created_at,
    subTaskTemplates: JSON.parse(row.sub_task_templates) as SubTaskTemplate[],
  };
}

/** Templates are the workspace's: every principal that may read them sees them all. */
export function listTemplates(
  db: Kysely<DB>,
  access: Access,
  query: TaskTemplateListQuery,
  tokens: PageTokens,
): Promise<Page<TaskTemplate>> {
  const q = db.selectFrom('task_templates').selectAll().where('workspace_id', '=', access.workspaceId);
  return fetchPage(q, 'task_templates', query, tokens, pageScope(access, 'task_templates'), toTemplate);
}

export async function findTemplate(db: Kysely<DB>, access: Access, id: string): Promise<TaskTemplate | undefined> {
  const row = await db
    .selectFrom('task_templates')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toTemplate(row);
}

export function insertTemplate(work: UnitOfWork, access: Access, template: TaskTemplate): void {
  work.write(
    work.db.insertInto('task_templates').values({
      id: template.id,
      workspace_id: access.workspaceId,
      name: template.name,
      description: template.description,
      sub_task_templates: JSON.stringify(template.subTaskTemplates),
      created_at: template.createdDate,
    }),
  );
}

/** Writes a template's name, description and subtask templates (its id and creation stay). */
export function updateTemplate(work: UnitOfWork, access: Access, template: TaskTemplate): void {
  work.write(
    work.db
      .updateTable('task_templates')
      .set({ name: template.name, description: template.description, sub_task_templates: JSON.stringify(template.subTaskTemplates) })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', template.id),
  );
}

/** Deletes a template; the tasks made from it stay, their templateId cleared (the foreign key's `set null`). */
export function deleteTemplate(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('task_templates').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}

/** The tasks assigned to a removed internal user stay, unassigned (modules/workflows/staff). */
export function unassignTasksOf(work: UnitOfWork, access: Access, internalUserId: string, at: string): void {
  work.write(
    work.db
      .updateTable('tasks')
      .set({ internal_user_id: null, updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('internal_user_id', '=', internalUserId),
  );
}
