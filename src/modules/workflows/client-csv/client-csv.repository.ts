import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import type { Access } from '../../../lib/caller.js';
import { type CustomFieldOptionRef, type CustomFieldType, optionsOfFields } from '../../resources/custom-fields/index.js';

/** The reads of the CSV import and export that no list of the API makes: every one a single query. */

/** A client custom field as a CSV column: its key, type and (multiSelect) options. */
export interface ClientColumnField {
  id: string;
  key: string;
  type: CustomFieldType;
  options: CustomFieldOptionRef[];
}

/** Every client custom field of the workspace, oldest first (the export's column order), with its options. */
export async function clientFields(db: Kysely<DB>, access: Access): Promise<ClientColumnField[]> {
  const rows = await db
    .selectFrom('custom_fields')
    .select(['id', 'key', 'type'])
    .where('workspace_id', '=', access.workspaceId)
    .where('entity_type', '=', 'client')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const fields = rows.map((row) => ({ ...row, options: [] as CustomFieldOptionRef[] }));
  const byId = new Map(fields.map((field) => [field.id, field]));
  const selects = fields.filter((field) => field.type === 'multiSelect').map((field) => field.id);
  for (const { custom_field_id, ...option } of await optionsOfFields(db, access, selects)) byId.get(custom_field_id)?.options.push(option);
  return fields;
}

/** Name key (trimmed, lower-cased name) → id of the workspace's real companies with these keys (placeholders have none). */
export async function companyIdsByNameKey(db: Kysely<DB>, access: Access, nameKeys: readonly string[]): Promise<Map<string, string>> {
  if (nameKeys.length === 0) return new Map();
  const rows = await db
    .selectFrom('companies')
    .select(['id', 'name_key'])
    .where('workspace_id', '=', access.workspaceId)
    .where('name_key', 'in', nameKeys)
    .execute();
  return new Map(rows.map((row) => [row.name_key as string, row.id]));
}

/** Id → name of these companies; a placeholder's name is `null` (it is no company one could name). */
export async function companyNames(db: Kysely<DB>, access: Access, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('companies')
    .select(['id', 'name', 'is_placeholder'])
    .where('workspace_id', '=', access.workspaceId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row.is_placeholder === 1 ? null : row.name]));
}
