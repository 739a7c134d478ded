import { validInput } from '../lib/validate.js';
import { TaskTemplateCreate, createTaskTemplate } from '../modules/resources/tasks/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

/** `--subtasks`: a JSON array of `{name, description?}`. */
function subtasksOption(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--subtasks must be JSON: [{"name": "…", "description": "…"}, …]');
  }
}

/** `portal task-templates create`: the body of POST /admin/workspaces/{id}/task-templates, checked by the same schema and service. */
export const taskTemplatesGroup: CommandGroup = {
  create: command({
    usage: 'portal task-templates create --workspace W --name N [--description D] [--subtasks JSON]',
    options: { workspace: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' }, subtasks: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(TaskTemplateCreate, {
        name: requireOption(values, 'name'),
        ...given({ description: values.description, subTaskTemplates: subtasksOption(values.subtasks) }),
      });
      const template = await createTaskTemplate(database, caller, input);
      printResult(json, template, `Task template ${template.id} created (${template.subTaskTemplates.length} subtasks).`);
    },
  }),
};
