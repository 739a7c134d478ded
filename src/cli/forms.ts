import { validInput } from '../lib/validate.js';
import { FormCreate, FormUpdate, createForm, updateForm } from '../modules/forms/index.js';
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

/** `--allow-multiple-submissions true|false` of `forms update` (a flag alone could not turn it off). */
function booleanOption(name: string, text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  throw new UsageError(`--${name} must be true or false`);
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
  update: command({
    usage:
      'portal forms update --workspace W --form F [--name N] [--description D] [--fields JSON] [--allow-multiple-submissions true|false] [--visibility V]',
    options: {
      workspace: { type: 'string' },
      form: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      fields: { type: 'string' },
      'allow-multiple-submissions': { type: 'string' },
      visibility: { type: 'string' },
    },
    /** The body of PATCH /admin/workspaces/{id}/forms/{formId}: `--fields` is the whole list, `formFieldId` keeping a field. */
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const formId = requireOption(values, 'form');
      const input = validInput(
        FormUpdate,
        given({
          name: values.name,
          description: values.description,
          formFields: values.fields === undefined ? undefined : fieldsOption(values.fields),
          allowMultipleSubmissions: booleanOption('allow-multiple-submissions', values['allow-multiple-submissions']),
          visibility: values.visibility,
        }),
      );
      const form = await updateForm(database, caller, formId, input);
      printResult(json, form, `Form ${form.id}: "${form.name}", version ${form.version} (${form.formFields.length} fields).`);
    },
  }),
};
