import type { Database } from '../db/database.js';
import { createCustomField } from '../modules/custom-fields/custom-fields.service.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption, workspaceCaller } from './output.js';

const USAGE = 'usage: portal custom-fields create --workspace W --entity client|company --key K --name N --type T [--options L1,L2]';

export async function customFieldsCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub !== 'create') throw new UsageError(USAGE);
  const input = {
    entityType: requireOption(values, 'entity'),
    key: requireOption(values, 'key'),
    name: requireOption(values, 'name'),
    type: requireOption(values, 'type'),
    options: values.options?.split(','),
  };
  const workspaceId = requireOption(values, 'workspace');
  const field = await createCustomField(database, await workspaceCaller(database, workspaceId), input);
  const optionLines = (field.options ?? []).map((o) => `\n  ${o.key}  ${o.label}  (${o.id})`).join('');
  printResult(
    json,
    { id: field.id, ...(field.options ? { options: field.options } : {}) },
    `Custom field ${field.id} created: ${field.entityType} ${field.key} (${field.type}).${optionLines}`,
  );
}
