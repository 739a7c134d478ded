import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/database.js';
import type { PageRequest, PageTokens } from '../../db/paging.js';
import type { CustomFieldEntity, CustomFieldType, CustomFieldsTable, DB } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { type Clock, isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import * as repo from './custom-fields.repository.js';
import { CUSTOM_FIELD_ENTITIES, CUSTOM_FIELD_TYPES, type CustomFieldBody, type CustomFieldOptionRefBody } from './custom-fields.schemas.js';

export interface CustomFieldInput {
  entityType: string;
  key: string;
  name: string;
  type: string;
  /** Option labels: multiSelect only, and required for it. */
  options?: string[];
}

const KEY = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

/** `Gold Tier!` → `gold_tier`: option keys use the same alphabet as field keys. */
function slugify(label: string): string {
  const slug = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return slug || 'option';
}

/** A key per label, unique within the field: a repeated slug gets `_2`, `_3`… */
function optionKeys(labels: string[]): string[] {
  const used = new Set<string>();
  return labels.map((label) => {
    const base = slugify(label);
    let key = base;
    for (let n = 2; used.has(key); n++) key = `${base}_${n}`;
    used.add(key);
    return key;
  });
}

function checkInput(input: CustomFieldInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  if (!(CUSTOM_FIELD_ENTITIES as readonly string[]).includes(input.entityType)) add('entityType', `must be one of: ${CUSTOM_FIELD_ENTITIES.join(', ')}`);
  if (!KEY.test(input.key)) add('key', 'must start with a letter and have only letters, digits and _ (at most 64)');
  if (!input.name.trim()) add('name', 'must not be empty');
  if (!(CUSTOM_FIELD_TYPES as readonly string[]).includes(input.type)) add('type', `must be one of: ${CUSTOM_FIELD_TYPES.join(', ')}`);
  const labels = input.options;
  if (input.type !== 'multiSelect') {
    if (labels !== undefined) add('options', 'are allowed only for multiSelect fields');
  } else if (!labels || labels.length === 0) {
    add('options', 'must list at least one label for a multiSelect field');
  } else {
    labels.forEach((label, i) => {
      if (!label.trim()) add(`options.${i}`, 'must not be empty');
      else if (labels.findIndex((other) => other.trim() === label.trim()) < i) add(`options.${i}`, 'repeats an earlier label');
    });
  }
  return problems;
}

/** The API object of a definition; `options` are given for multiSelect fields only. */
export function toCustomField(row: CustomFieldsTable, options: CustomFieldOptionRefBody[]): CustomFieldBody {
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

/** Creates a custom field (and its options) in one transaction; a key already used for the entity is a 409. */
export async function createCustomField(db: Kysely<DB>, workspaceId: string, input: CustomFieldInput, clock: Clock): Promise<CustomFieldBody> {
  const problems = checkInput(input);
  if (problems.length > 0) {
    throw errors.badRequest(problems.length === 1 ? `${problems[0].path} ${problems[0].message}` : `${problems.length} fields are invalid`, problems);
  }
  const at = isoAt(clock.now());
  const row: CustomFieldsTable = {
    id: randomUUID(),
    workspace_id: workspaceId,
    entity_type: input.entityType as CustomFieldEntity,
    key: input.key,
    name: input.name.trim(),
    type: input.type as CustomFieldType,
    created_at: at,
    updated_at: at,
  };
  const labels = (input.options ?? []).map((label) => label.trim());
  const keys = optionKeys(labels);
  // Options share created_at; ids ascending in the given order make the keyset order (created_at, id) that order.
  const ids = labels.map(() => randomUUID()).sort();
  const options = labels.map((label, i) => ({ id: ids[i], key: keys[i], label }));
  await inTransaction(db, async (trx) => {
    try {
      await repo.insertCustomField(trx, workspaceId, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict(`A ${row.entity_type} custom field with key "${row.key}" already exists.`);
      throw error;
    }
    await repo.insertOptions(trx, workspaceId, options.map((o) => ({ ...o, custom_field_id: row.id, created_at: at })));
  });
  return toCustomField(row, options);
}

/** One page of definitions with the options of its multiSelect fields, read in one more query. */
export async function listCustomFields(db: Kysely<DB>, workspaceId: string, filters: { entityType?: CustomFieldEntity }, tokens: PageTokens, page: PageRequest) {
  const { rows, nextToken } = await repo.listCustomFields(db, workspaceId, filters, tokens, page);
  const multiSelectIds = rows.filter((row) => row.type === 'multiSelect').map((row) => row.id);
  const options = multiSelectIds.length > 0 ? await repo.optionsOfFields(db, workspaceId, multiSelectIds) : [];
  const byField = new Map<string, CustomFieldOptionRefBody[]>();
  for (const { custom_field_id, ...option } of options) {
    if (!byField.has(custom_field_id)) byField.set(custom_field_id, []);
    byField.get(custom_field_id)!.push(option);
  }
  const data = rows.map((row) => toCustomField(row, byField.get(row.id) ?? []));
  return { data, ...(nextToken ? { nextToken } : {}) };
}

/** One page of a field's options; the field is looked up only when the page is empty, to tell "none" from "no such field". */
export async function listOptions(db: Kysely<DB>, workspaceId: string, fieldId: string, filters: { label?: string }, tokens: PageTokens, page: PageRequest) {
  const { rows, nextToken } = await repo.listOptions(db, workspaceId, fieldId, filters, tokens, page);
  if (rows.length === 0 && !(await repo.findCustomField(db, workspaceId, fieldId))) throw errors.notFound('Custom field');
  const data = rows.map((row) => ({ id: row.id, object: 'customFieldOption' as const, key: row.key, label: row.label }));
  return { data, ...(nextToken ? { nextToken } : {}) };
}
