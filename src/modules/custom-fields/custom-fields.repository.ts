import type { Kysely } from 'kysely';
import { type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import type { CustomFieldEntity, CustomFieldOptionsTable, CustomFieldsTable, DB } from '../../db/schema.js';

export async function insertCustomField(db: Kysely<DB>, workspaceId: string, row: Omit<CustomFieldsTable, 'workspace_id'>) {
  await db.insertInto('custom_fields').values({ ...row, workspace_id: workspaceId }).execute();
}

export async function insertOptions(db: Kysely<DB>, workspaceId: string, rows: Omit<CustomFieldOptionsTable, 'workspace_id'>[]) {
  if (rows.length === 0) return;
  await db
    .insertInto('custom_field_options')
    .values(rows.map((row) => ({ ...row, workspace_id: workspaceId })))
    .execute();
}

export function listCustomFields(db: Kysely<DB>, workspaceId: string, filters: { entityType?: CustomFieldEntity }, tokens: PageTokens, page: PageRequest) {
  let q = db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.entityType !== undefined) q = q.where('entity_type', '=', filters.entityType);
  return fetchPage(q, 'custom_fields', page, tokens, pageScope(workspaceId, 'customFields', filters));
}

export function findCustomField(db: Kysely<DB>, workspaceId: string, id: string) {
  return db.selectFrom('custom_fields').select('id').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The definitions of these keys for one entity (unknown keys are simply absent). */
export function findDefinitions(db: Kysely<DB>, workspaceId: string, entity: CustomFieldEntity, keys: string[]) {
  return db
    .selectFrom('custom_fields')
    .select(['id', 'key', 'type'])
    .where('workspace_id', '=', workspaceId)
    .where('entity_type', '=', entity)
    .where('key', 'in', keys)
    .execute();
}

/** Options of several fields in one query, each field's in the order they were given. */
export function optionsOfFields(db: Kysely<DB>, workspaceId: string, fieldIds: string[]) {
  return db
    .selectFrom('custom_field_options')
    .select(['id', 'custom_field_id', 'key', 'label'])
    .where('workspace_id', '=', workspaceId)
    .where('custom_field_id', 'in', fieldIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listOptions(db: Kysely<DB>, workspaceId: string, fieldId: string, filters: { label?: string }, tokens: PageTokens, page: PageRequest) {
  let q = db
    .selectFrom('custom_field_options')
    .select(['id', 'key', 'label', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('custom_field_id', '=', fieldId);
  if (filters.label !== undefined) q = q.where('label', '=', filters.label);
  return fetchPage(q, 'custom_field_options', page, tokens, pageScope(workspaceId, `customFieldOptions:${fieldId}`, filters));
}
