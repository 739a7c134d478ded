import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import {
  ADMIN_WRITE_ERRORS,
  adminDoc,
  DELETE_ERRORS,
  DeletedBody,
  IdParams,
  Page,
  READ_ERRORS,
  WorkspaceParams,
  WRITE_ERRORS,
} from '../../../lib/schemas.js';
import {
  SUB_TASK_TEMPLATES_MAX,
  TASK_DESCRIPTION_MAX,
  TASK_NAME_MAX,
  Task,
  TaskCreate,
  TaskListQuery,
  TaskTemplate,
  TaskTemplateCreate,
  TaskTemplateListQuery,
  TaskTemplateUpdate,
  TaskUpdate,
} from './tasks.schemas.js';
import * as service from './tasks.service.js';

/** A client session reads the tasks assigned to it (or its company) or that it views; it creates and deletes none (403). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
/** A client session completes and reopens its own tasks (the service refuses any other change: 403). */
const CLIENT_COMPLETES: RoutePolicy = { clientSession: 'write' };
/** Templates are the staff's: a client session is answered as if they were absent. */
const STAFF_ONLY: RoutePolicy = { clientSession: 'none' };
/** Templates are the workspace's: made, changed and deleted by admins (and keys, tokens); staff get 403. */
const ADMINS_ONLY: RoutePolicy = { clientSession: 'none', staff: false };
const tags = ['tasks'];

const VISIBILITY =
  'A client session sees the tasks assigned to it or to one of its companies, and those it or its company views; ' +
  'an internal user limited to some companies sees those of its companies (and their clients) and the tasks that concern no company.';
const WHO_CHANGES =
  'Keys, bearer tokens and an admin with access to every company change any task they see; any other internal user a task ' +
  'it created, one assigned to it, or one assigned to no internal user (a client, a company, or no one): another internal ' +
  'user’s task is a 403.';
const CLIENT_STATUS =
  'A client session changes only `status` (completing or reopening) of a task assigned to it or to its company; any other ' +
  'field, or a task it only views, is a 403.';
const LIMITS = `name: one line, ${TASK_NAME_MAX} characters at most; description: ${TASK_DESCRIPTION_MAX} characters at most.`;

export default async function taskRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/tasks',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveTasks',
        summary: 'List tasks, newest first',
        description: `Filters are exact matches; companyId finds the tasks of the company and of its clients. ${VISIBILITY}`,
        querystring: TaskListQuery,
        response: { 200: Page(Task), ...READ_ERRORS },
      },
    },
    async (request) => service.listTasks(database, request.caller, request.query, pageTokens),
  );
  app.post(
    '/tasks',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'createTask',
        summary: 'Create a task: taskCreated (and taskCompleted when created completed)',
        description:
          'One assignee at most: internalUserId alone, or clientId with its companyId (left out when the client has one company), ' +
          'or companyId alone; each must be one the caller sees. A viewer only on a task assigned to an internal user. ' +
          `From templateId: the template's name and description unless given, and a subtask per subtask template. ` +
          `A subtask (parentTaskId) only under a task the caller may change (403 otherwise). ${LIMITS}`,
        body: TaskCreate,
        response: { 200: Task, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createTask(database, request.caller, request.body),
  );
  app.get(
    '/tasks/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveTask',
        summary: 'Retrieve a task',
        description: VISIBILITY,
        params: IdParams,
        response: { 200: Task, ...READ_ERRORS },
      },
    },
    async (request) => service.getTask(database, request.caller, request.params.id),
  );
  app.patch(
    '/tasks/:id',
    {
      config: { policy: CLIENT_COMPLETES },
      schema: {
        tags,
        operationId: 'updateTask',
        summary: 'Update a task: taskUpdated, and taskCompleted or taskArchived when it becomes so',
        description:
          'Changes only the fields given. Naming any of internalUserId, clientId and companyId replaces the assignee (same rules ' +
          'as creation); a task no longer assigned to an internal user loses its viewer. No change: no event. ' +
          `${WHO_CHANGES} ${CLIENT_STATUS} ${LIMITS}`,
        params: IdParams,
        body: TaskUpdate,
        response: { 200: Task, ...WRITE_ERRORS },
      },
    },
    async (request) => service.updateTask(database, request.caller, request.params.id, request.body),
  );
  app.delete(
    '/tasks/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'deleteTask',
        summary: 'Delete a task and its subtasks: taskDeleted for each',
        description:
          `A task the caller sees, with its subtasks (taskDeleted for each). A client session gets a 403. ${WHO_CHANGES} A delete reaches only what the caller sees and may change: when a subtask (at any depth) is one ` +
          'it does not see or may not change, the answer is a 403 saying so, and nothing is deleted.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteTask(database, request.caller, request.params.id),
  );
  app.get(
    '/task-templates',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'listTaskTemplates',
        summary: 'List task templates, newest first',
        description:
          'Templates are made here by an admin (or a key, a token), on the admin surface, or with `portal task-templates create`.',
        querystring: TaskTemplateListQuery,
        response: { 200: Page(TaskTemplate), ...READ_ERRORS },
      },
    },
    async (request) => service.listTaskTemplates(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/task-templates/:id',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'retrieveTaskTemplate',
        summary: 'Retrieve a task template',
        description: 'With its subtask templates. Staff only: client sessions get a 404.',
        params: IdParams,
        response: { 200: TaskTemplate, ...READ_ERRORS },
      },
    },
    async (request) => service.getTaskTemplate(database, request.caller, request.params.id),
  );
  app.post(
    '/task-templates',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'createTaskTemplate',
        summary: `Create a task template, with up to ${SUB_TASK_TEMPLATES_MAX} subtask templates`,
        description: `Keys, bearer tokens and admins; staff get a 403, client sessions a 404. No event. ${LIMITS}`,
        body: TaskTemplateCreate,
        response: { 200: TaskTemplate, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createTaskTemplate(database, request.caller, request.body),
  );
  app.patch(
    '/task-templates/:id',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'updateTaskTemplate',
        summary: 'Update a task template',
        description:
          'Changes the fields given; subTaskTemplates given replace the old ones (new ids). The tasks already made from it keep ' +
          `what they copied. Keys, bearer tokens and admins; staff get a 403. No event. ${LIMITS}`,
        params: IdParams,
        body: TaskTemplateUpdate,
        response: { 200: TaskTemplate, ...WRITE_ERRORS },
      },
    },
    async (request) => service.updateTaskTemplate(database, request.caller, request.params.id, request.body),
  );
  app.delete(
    '/task-templates/:id',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'deleteTaskTemplate',
        summary: 'Delete a task template',
        description: 'The tasks made from it stay, without a templateId. Keys, bearer tokens and admins; staff get a 403. No event.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteTaskTemplate(database, request.caller, request.params.id),
  );
}

/** Making task templates on the admin surface (as `portal task-templates create`). */
export async function taskAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;
  app.post(
    '/workspaces/:workspaceId/task-templates',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateTaskTemplate',
        summary: `Create a task template, with up to ${SUB_TASK_TEMPLATES_MAX} subtask templates`,
        description: LIMITS,
        params: WorkspaceParams,
        body: TaskTemplateCreate,
        response: { 200: TaskTemplate, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createTaskTemplate(database, request.caller, request.body),
  );
}
