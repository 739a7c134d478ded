import { validInput } from '../lib/validate.js';
import { ContractTemplateCreate, createContractTemplate } from '../modules/resources/contracts/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

/** `--fields`: a JSON array of `{type, inputType, id?, page?, isOptional?, label?, value?}`. */
function fieldsOption(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--fields must be JSON: [{"type": "signature", "inputType": "client"}, …]');
  }
}

/** `portal contract-templates create`: the body of POST /admin/workspaces/{id}/contract-templates, checked by the same schema and service. */
export const contractTemplatesGroup: CommandGroup = {
  create: command({
    usage: 'portal contract-templates create --workspace W --name N --fields JSON [--file-url URL]',
    options: { workspace: { type: 'string' }, name: { type: 'string' }, fields: { type: 'string' }, 'file-url': { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(ContractTemplateCreate, {
        name: requireOption(values, 'name'),
        fields: fieldsOption(requireOption(values, 'fields')),
        ...given({ fileUrl: values['file-url'] }),
      });
      const template = await createContractTemplate(database, caller, input);
      printResult(json, template, `Contract template ${template.id} created (${template.fields.length} fields).`);
    },
  }),
};
