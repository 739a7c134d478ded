import { validInput } from '../lib/validate.js';
import { FormCreate, createForm } from '../modules/forms/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

/** `--fields`: a JSON array of `{title, type, description?, isRequired?}`. */
function fieldsOption(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--fields must be JSON: [{"title": "…", "type": "shortAnswer", "isRequired": true}, …]');
  }
}

/** `portal forms create`: the body of POST /admin/workspaces/{id}/forms, checked by the same schema and service. */
export const formsGroup: CommandGroup = {
  create: command({
    usage:
      'portal forms create --workspace W --name N --fields JSON [--description D] [--allow-multiple-submissions] [--visibility allClients|requestedClients]',
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      fields: { type: 'string' },
      'allow-multiple-submissions': { type: 'boolean' },
      visibility: { type: 'string' },
    },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(FormCreate, {
        name: requireOption(values, 'name'),
        formFields: fieldsOption(requireOption(values, 'fields')),
        ...given({
          description: values.description,
          visibility: values.visibility,
          allowMultipleSubmissions: values['allow-multiple-submissions'],
        }),
      });
      const form = await createForm(database, caller, input);
      printResult(json, form, `Form ${form.id} created (${form.formFields.length} fields).`);
    },
  }),
};
