import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import * as repo from './custom-fields.repository.js';
import {
  CUSTOM_FIELD_ENTITIES,
  CUSTOM_FIELD_TYPES,
  type CustomField,
  type CustomFieldEntity,
  type CustomFieldListQuery,
  type CustomFieldOption,
  type CustomFieldOptionListQuery,
  type CustomFieldType,
} from './custom-fields.schemas.js';

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

/** Creates a custom field and its options in one unit of work; a key already used for the entity is a 409. */
export async function createCustomField(database: Database, caller: Caller, input: CustomFieldInput): Promise<CustomField> {
  const problems = checkInput(input);
  if (problems.length > 0) {
    throw errors.badRequest(problems.length === 1 ? `${problems[0].path} ${problems[0].message}` : `${problems.length} fields are invalid`, problems);
  }
  const at = isoAt(caller.actor.at);
  const labels = (input.options ?? []).map((label) => label.trim());
  const keys = optionKeys(labels);
  // Options share created_at; ids ascending in the given order make the keyset order (created_at, id) that order.
  const ids = labels.map(() => randomUUID()).sort();
  const type = input.type as CustomFieldType;
  const field: CustomField = {
    id: randomUUID(),
    object: 'customField',
    key: input.key,
    name: input.name.trim(),
    type,
    entityType: input.entityType as CustomFieldEntity,
    ...(type === 'multiSelect' ? { options: labels.map((label, i) => ({ id: ids[i], key: keys[i], label })) } : {}),
    createdAt: at,
    updatedAt: at,
  };
  return unitOfWork(database, async (work) => {
    repo.insertCustomField(work, caller.access, field);
    return field;
  });
}

export function listCustomFields(database: Database, caller: Caller, query: CustomFieldListQuery, tokens: PageTokens): Promise<Page<CustomField>> {
  return repo.listCustomFields(database.db, caller.access, query, tokens);
}

/** One page of a field's options; the field is looked up only when the page is empty, to tell "none" from "no such field". */
export async function listOptions(database: Database, caller: Caller, fieldId: string, query: CustomFieldOptionListQuery, tokens: PageTokens): Promise<Page<CustomFieldOption>> {
  const page = await repo.listOptions(database.db, caller.access, fieldId, query, tokens);
  if (page.data.length === 0 && !(await repo.findCustomField(database.db, caller.access, fieldId))) throw errors.notFound('Custom field');
  return page;
}
