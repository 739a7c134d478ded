/** Tasks and task templates (modules/resources/tasks). */

export const TASK_STATUSES = ['todo', 'inProgress', 'completed'] as const;
type TaskStatus = (typeof TASK_STATUSES)[number];

/** Who made or completed a task: an internal user or a client (a session), or an API key (anything else). */
export const TASK_ACTOR_TYPES = ['internalUser', 'client', 'apiKey'] as const;
type TaskActorType = (typeof TASK_ACTOR_TYPES)[number];

export interface TasksTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  status: TaskStatus;
  parent_task_id: string | null;
  template_id: string | null;
  /** The assignee: an internal user, or a client in a company (client_id and company_id), or a company (company_id alone); or none. */
  internal_user_id: string | null;
  client_id: string | null;
  company_id: string | null;
  /** One viewer of a task assigned to an internal user: a client in a company, or a company. */
  viewer_client_id: string | null;
  viewer_company_id: string | null;
  due_date: string | null;
  created_by: string;
  creator_type: TaskActorType;
  source: string;
  is_archived: number;
  archived_by: string | null;
  archived_at: string | null;
  completed_by: string | null;
  completed_by_type: TaskActorType | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskTemplatesTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  /** JSON text: array of `{id, name, description, createdDate}`, the subtasks a task made from it gets */
  sub_task_templates: string;
  created_at: string;
}

export interface TasksTables {
  tasks: TasksTable;
  task_templates: TaskTemplatesTable;
}
