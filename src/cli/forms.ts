import { validInput } from '../lib/validate.js';
import { FormCreate, FormUpdate, createForm, updateForm } from '../modules/resources/forms/index.js';
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

/** `forms update`'s `--allow-multiple-submissions` (on) or `--single-submission` (off), or neither (unchanged). */
function multipleSubmissionsOption(values: { 'allow-multiple-submissions'?: boolean; 'single-submission'?: boolean }) {
  const on = values['allow-multiple-submissions'] === true;
  const off = values['single-submission'] === true;
  if (on && off) throw new UsageError('--allow-multiple-submissions and --single-submission: give one of them');
  return on ? true : off ? false : undefined;
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
      'portal forms update --workspace W --form F [--name N] [--description D] [--fields JSON] [--allow-multiple-submissions | --single-submission] [--visibility V]',
    options: {
      workspace: { type: 'string' },
      form: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      fields: { type: 'string' },
      'allow-multiple-submissions': { type: 'boolean' },
      'single-submission': { type: 'boolean' },
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
          allowMultipleSubmissions: multipleSubmissionsOption(values),
          visibility: values.visibility,
        }),
      );
      const form = await updateForm(database, caller, formId, input);
      printResult(json, form, `Form ${form.id}: "${form.name}", version ${form.version} (${form.formFields.length} fields).`);
    },
  }),
};
