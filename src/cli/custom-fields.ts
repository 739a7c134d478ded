import { validInput } from '../lib/validate.js';
import { createCustomField, CustomFieldCreate, customFieldCreateRules } from '../modules/resources/custom-fields/index.js';
import { type CommandGroup, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const customFieldsGroup: CommandGroup = {
  create: command({
    usage: 'portal custom-fields create --workspace W --entity client|company --key K --name N --type T [--options L1,L2]',
    options: {
      workspace: { type: 'string' },
      entity: { type: 'string' },
      key: { type: 'string' },
      name: { type: 'string' },
      type: { type: 'string' },
      options: { type: 'string' },
    },
    async run(values, { database, json }) {
      const fields = {
        entityType: requireOption(values, 'entity'),
        key: requireOption(values, 'key'),
        name: requireOption(values, 'name'),
        type: requireOption(values, 'type'),
        ...given({ options: values.options?.split(',') }),
      };
      const caller = await requireWorkspace(database, values);
      const input = validInput(CustomFieldCreate, fields, customFieldCreateRules);
      const field = await createCustomField(database, caller, input);
      const optionLines = (field.options ?? []).map((o) => `\n  ${o.key}  ${o.label}  (${o.id})`).join('');
      printResult(
        json,
        { id: field.id, ...(field.options ? { options: field.options } : {}) },
        `Custom field ${field.id} created: ${field.entityType} ${field.key} (${field.type}).${optionLines}`,
      );
    },
  }),
};
