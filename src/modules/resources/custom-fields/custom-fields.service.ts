import { randomUUID } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import { type Page, type PageTokens, listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import * as repo from './custom-fields.repository.js';
import type { CustomField, CustomFieldCreate, CustomFieldOption, CustomFieldOptionListQuery } from './custom-fields.schemas.js';

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

/**
 * Creates a custom field and its options in one unit of work; a key already used for the entity is a 409.
 * The input has passed `CustomFieldCreate` and its rules (`customFieldCreateRules`).
 */
export async function createCustomField(database: Database, caller: Caller, input: CustomFieldCreate): Promise<CustomField> {
  const at = isoAt(caller.actor.at);
  const labels = (input.options ?? []).map((label) => label.trim());
  const keys = optionKeys(labels);
  // Options share created_at; ids ascending in the given order make the keyset order (created_at, id) that order.
  const ids = labels.map(() => randomUUID()).sort();
  const type = input.type;
  const field: CustomField = {
    id: randomUUID(),
    object: 'customField',
    key: input.key,
    name: input.name.trim(),
    type,
    entityType: input.entityType,
    ...(type === 'multiSelect' ? { options: labels.map((label, i) => ({ id: ids[i], key: keys[i], label })) } : {}),
    createdAt: at,
    updatedAt: at,
  };
  return unitOfWork(database, async (work) => {
    repo.insertCustomField(work, caller.access, field);
    return field;
  });
}

export const listCustomFields = listAs(repo.listCustomFields);

/** One page of a field's options; the field is looked up only when the page is empty, to tell "none" from "no such field". */
export async function listOptions(
  database: Database,
  caller: Caller,
  fieldId: string,
  query: CustomFieldOptionListQuery,
  tokens: PageTokens,
): Promise<Page<CustomFieldOption>> {
  const page = await repo.listOptions(database.db, caller.access, fieldId, query, tokens);
  if (page.data.length === 0 && !(await repo.findCustomField(database.db, caller.access, fieldId))) throw errors.notFound('Custom field');
  return page;
}
