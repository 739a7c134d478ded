import { type Static, Type } from 'typebox';
import { TASK_ACTOR_TYPES, TASK_STATUSES } from '../../../db/schema.js';
import { Id, Line, PageQuery, RefId, Text, Timestamp } from '../../../lib/schemas.js';

export const TASK_NAME_MAX = 255;
export const TASK_DESCRIPTION_MAX = 10_000;
export const SUB_TASK_TEMPLATES_MAX = 20;

const NAME_RULE = `1–${TASK_NAME_MAX} characters`;
const taskName = (description = NAME_RULE) => Line({ maxLength: TASK_NAME_MAX, description });
const TaskName = taskName();
const TaskDescription = Text({ maxLength: TASK_DESCRIPTION_MAX, description: `at most ${TASK_DESCRIPTION_MAX} characters` });
const Status = Type.Enum([...TASK_STATUSES], { description: 'todo, inProgress or completed' });
const DueDate = Type.String({ format: 'date-time', description: 'RFC 3339; stored and answered in UTC' });

const ViewerInput = Type.Object(
  {
    clientId: Type.Optional(RefId('a client viewer (with its companyId when it has several companies)')),
    companyId: Type.Optional(RefId('a company viewer, or the client viewer’s company')),
  },
  { additionalProperties: false },
);
/** The SDK sends an array on create and one object on update: both are taken, at most one viewer either way. */
const ViewersInput = Type.Union([Type.Array(ViewerInput, { maxItems: 1 }), ViewerInput], {
  description:
    'at most one viewer (a client in a company, or a company), only on a task assigned to an internal user; an array or one object; [] removes it',
});

const assignee = {
  internalUserId: Type.Optional(RefId('assign to this internal user (alone: not with clientId or companyId)')),
  clientId: Type.Optional(RefId('assign to this client, in companyId (which may be left out when the client has one company)')),
  companyId: Type.Optional(RefId('alone: assign to the company; with clientId: the client’s company')),
};

export const TaskCreate = Type.Object(
  {
    name: Type.Optional(taskName(`${NAME_RULE}; required unless templateId gives it`)),
    description: Type.Optional(TaskDescription),
    parentTaskId: Type.Optional(RefId('a task of the workspace: this one is its subtask')),
    status: Type.Optional(Type.Enum([...TASK_STATUSES], { description: 'todo (default), inProgress or completed' })),
    ...assignee,
    dueDate: Type.Optional(DueDate),
    templateId: Type.Optional(
      RefId('a task template: its name and description unless given here, and one subtask per subtask template (same assignee)'),
    ),
    viewers: Type.Optional(ViewersInput),
  },
  { additionalProperties: false, title: 'TaskCreate' },
);
export type TaskCreate = Static<typeof TaskCreate>;

export const TaskUpdate = Type.Object(
  {
    name: Type.Optional(TaskName),
    description: Type.Optional(TaskDescription),
    status: Type.Optional(Status),
    ...assignee,
    dueDate: Type.Optional(Type.Union([DueDate, Type.Null()], { description: 'RFC 3339, or null to remove the due date' })),
    isArchived: Type.Optional(Type.Boolean({ description: 'true archives (taskArchived), false restores' })),
    viewers: Type.Optional(ViewersInput),
  },
  { additionalProperties: false, title: 'TaskUpdate' },
);
export type TaskUpdate = Static<typeof TaskUpdate>;

const Viewer = Type.Object({ clientId: Type.Optional(Type.String()), companyId: Type.String() }, { additionalProperties: false });
const ActorType = Type.Enum([...TASK_ACTOR_TYPES], { description: 'internalUser or client (a session), apiKey (a key or token)' });

export const Task = Type.Object(
  {
    id: Id,
    object: Type.Literal('task'),
    name: Type.String(),
    description: Type.String(),
    status: Status,
    parentTaskId: Type.Optional(Type.String()),
    templateId: Type.Optional(Type.String()),
    internalUserId: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    companyId: Type.Optional(Type.String({ description: 'the company assignee, or the client assignee’s company' })),
    viewers: Type.Array(Viewer),
    dueDate: Type.Optional(Timestamp),
    createdBy: Type.String({ description: 'the internal user or client who created it, or the API key’s id' }),
    creatorType: ActorType,
    source: Type.String({ description: 'where the creation came from: platform (the API), system' }),
    isArchived: Type.Boolean(),
    archivedBy: Type.Optional(Type.String()),
    archivedDate: Type.Optional(Timestamp),
    completedBy: Type.Optional(Type.String()),
    completedByUserType: Type.Optional(ActorType),
    completedDate: Type.Optional(Timestamp),
    isDeleted: Type.Boolean({ description: 'always false: a deleted task is gone (404)' }),
    createdDate: Timestamp,
    updatedDate: Timestamp,
  },
  { additionalProperties: false, title: 'Task' },
);
export type Task = Static<typeof Task>;

export const TaskListQuery = Type.Object(
  {
    ...PageQuery,
    createdBy: Type.Optional(Type.String({ description: 'tasks created by this internal user, client or API key' })),
    parentTaskId: Type.Optional(Type.String({ description: 'the subtasks of this task' })),
    status: Type.Optional(Status),
    clientId: Type.Optional(Type.String({ description: 'tasks assigned to this client' })),
    internalUserId: Type.Optional(Type.String({ description: 'tasks assigned to this internal user' })),
    companyId: Type.Optional(Type.String({ description: 'tasks assigned to this company or to its clients' })),
  },
  { additionalProperties: false },
);
export type TaskListQuery = Static<typeof TaskListQuery>;

// ---- templates ----

const SubTaskTemplate = Type.Object(
  { id: Id, object: Type.Literal('taskTemplate'), name: Type.String(), description: Type.String(), createdDate: Timestamp },
  { additionalProperties: false },
);
export type SubTaskTemplate = Static<typeof SubTaskTemplate>;

export const TaskTemplate = Type.Object(
  {
    id: Id,
    object: Type.Literal('taskTemplate'),
    name: Type.String(),
    description: Type.String(),
    createdDate: Timestamp,
    subTaskTemplates: Type.Array(SubTaskTemplate),
  },
  { additionalProperties: false, title: 'TaskTemplate' },
);
export type TaskTemplate = Static<typeof TaskTemplate>;

const TemplateFields = {
  name: TaskName,
  description: Type.Optional(TaskDescription),
};

export const TaskTemplateCreate = Type.Object(
  {
    ...TemplateFields,
    subTaskTemplates: Type.Optional(
      Type.Array(Type.Object(TemplateFields, { additionalProperties: false }), {
        maxItems: SUB_TASK_TEMPLATES_MAX,
        description: `at most ${SUB_TASK_TEMPLATES_MAX}: each becomes a subtask of a task made from the template`,
      }),
    ),
  },
  { additionalProperties: false, title: 'TaskTemplateCreate' },
);
export type TaskTemplateCreate = Static<typeof TaskTemplateCreate>;

export const TaskTemplateUpdate = Type.Object(
  {
    name: Type.Optional(TaskName),
    description: Type.Optional(TaskDescription),
    subTaskTemplates: Type.Optional(
      Type.Array(Type.Object(TemplateFields, { additionalProperties: false }), {
        maxItems: SUB_TASK_TEMPLATES_MAX,
        description: `replaces the subtask templates (at most ${SUB_TASK_TEMPLATES_MAX}); [] removes them`,
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'TaskTemplateUpdate' },
);
export type TaskTemplateUpdate = Static<typeof TaskTemplateUpdate>;

export const TaskTemplateListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type TaskTemplateListQuery = Static<typeof TaskTemplateListQuery>;
