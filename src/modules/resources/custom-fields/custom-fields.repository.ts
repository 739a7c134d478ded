import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import type { CustomFieldsTable, DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type {
  CustomField,
  CustomFieldEntity,
  CustomFieldListQuery,
  CustomFieldOption,
  CustomFieldOptionListQuery,
  CustomFieldOptionRef,
} from './custom-fields.schemas.js';

/** A definition as the API serves it; `options` for multiSelect fields only. */
function toCustomField(row: CustomFieldsTable, options: CustomFieldOptionRef[]): CustomField {
  return {
    id: row.id,
    object: 'customField',
    key: row.key,
    name: row.name,
    type: row.type,
    entityType: row.entity_type,
    ...(row.type === 'multiSelect' ? { options } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A new definition and its options (they share its created_at; ids ascending keep the given order). */
export function insertCustomField(work: UnitOfWork, access: Access, field: CustomField): void {
  work.write(
    work.db.insertInto('custom_fields').values({
      id: field.id,
      workspace_id: access.workspaceId,
      entity_type: field.entityType,
      key: field.key,
      name: field.name,
      type: field.type,
      created_at: field.createdAt,
      updated_at: field.updatedAt,
    }),
    { custom_fields_key_unique: `${field.entityType} custom field with key "${field.key}"` },
  );
  const options = field.options ?? [];
  if (options.length === 0) return;
  work.write(
    work.db
      .insertInto('custom_field_options')
      .values(options.map((o) => ({ ...o, workspace_id: access.workspaceId, custom_field_id: field.id, created_at: field.createdAt }))),
  );
}

/** One page of definitions with the options of its multiSelect fields, read in one more query. */
export async function listCustomFields(
  db: Kysely<DB>,
  access: Access,
  query: CustomFieldListQuery,
  tokens: PageTokens,
): Promise<Page<CustomField>> {
  const { limit, nextToken, entityType } = query;
  let q = db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', access.workspaceId);
  if (entityType !== undefined) q = q.where('entity_type', '=', entityType);
  const page = await fetchPage(
    q,
    'custom_fields',
    { limit, nextToken },
    tokens,
    pageScope(access, 'customFields', { entityType }),
    (row) => row,
  );
  const multiSelectIds = page.data.filter((row) => row.type === 'multiSelect').map((row) => row.id);
  const byField = new Map<string, CustomFieldOptionRef[]>();
  for (const { custom_field_id, ...option } of await optionsOfFields(db, access, multiSelectIds)) {
    const list = byField.get(custom_field_id) ?? [];
    list.push(option);
    byField.set(custom_field_id, list);
  }
  return { ...page, data: page.data.map((row) => toCustomField(row, byField.get(row.id) ?? [])) };
}

export function findCustomField(db: Kysely<DB>, access: Access, id: string) {
  return db.selectFrom('custom_fields').select('id').where('workspace_id', '=', access.workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The definitions of these keys for one entity (unknown keys are simply absent). */
export function findDefinitions(db: Kysely<DB>, access: Access, entity: CustomFieldEntity, keys: string[]) {
  return db
    .selectFrom('custom_fields')
    .select(['id', 'key', 'type'])
    .where('workspace_id', '=', access.workspaceId)
    .where('entity_type', '=', entity)
    .where('key', 'in', keys)
    .execute();
}

/** Options of several fields in one query, each field's in the order they were given. */
export async function optionsOfFields(db: Kysely<DB>, access: Access, fieldIds: string[]) {
  if (fieldIds.length === 0) return [];
  return db
    .selectFrom('custom_field_options')
    .select(['id', 'custom_field_id', 'key', 'label'])
    .where('workspace_id', '=', access.workspaceId)
    .where('custom_field_id', 'in', fieldIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listOptions(
  db: Kysely<DB>,
  access: Access,
  fieldId: string,
  query: CustomFieldOptionListQuery,
  tokens: PageTokens,
): Promise<Page<CustomFieldOption>> {
  const { limit, nextToken, label } = query;
  let q = db
    .selectFrom('custom_field_options')
    .select(['id', 'key', 'label', 'created_at'])
    .where('workspace_id', '=', access.workspaceId)
    .where('custom_field_id', '=', fieldId);
  if (label !== undefined) q = q.where('label', '=', label);
  const scope = pageScope(access, `customFieldOptions:${fieldId}`, { label });
  return fetchPage(q, 'custom_field_options', { limit, nextToken }, tokens, scope, (row) => ({
    id: row.id,
    object: 'customFieldOption' as const,
    key: row.key,
    label: row.label,
  }));
}
