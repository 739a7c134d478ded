import type { Database } from '../db/database.js';
import { systemClock } from '../lib/clock.js';
import { errors } from '../lib/errors.js';
import { createCustomField } from '../modules/custom-fields/custom-fields.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.repository.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption } from './output.js';

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
  // Ids are text columns: a malformed id simply finds no workspace.
  if (!(await findWorkspace(database.db, workspaceId))) throw errors.notFound('Workspace');
  const field = await createCustomField(database.db, workspaceId, input, systemClock);
  const optionLines = (field.options ?? []).map((o) => `\n  ${o.key}  ${o.label}  (${o.id})`).join('');
  printResult(
    json,
    { id: field.id, ...(field.options ? { options: field.options } : {}) },
    `Custom field ${field.id} created: ${field.entityType} ${field.key} (${field.type}).${optionLines}`,
  );
}
