import type { DbHandle } from '../../../db/database.js';
import type { Access } from '../../../lib/caller.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import { isEmail } from '../../../lib/formats.js';
import { NO_LONE_SURROGATE, hasLoneSurrogate } from '../../../lib/text.js';
import type { CustomFieldValue, CustomFieldValues } from '../../../lib/schemas.js';
import { findDefinitions, optionsOfFields } from './custom-fields.repository.js';
import type { CustomFieldType } from './custom-fields.schemas.js';

const ADDRESS_PROPERTIES = new Set(['addressLine1', 'addressLine2', 'city', 'country', 'fullAddress', 'postalCode', 'region']);
const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const PHONE = /^\+?[0-9 ().-]{3,32}$/;

/** Option id or key → option id, for one multiSelect field. */
type OptionIds = Map<string, string>;

/** A value checked against its field's type: the normalized value, or why it is refused. */
type Checked = { value: CustomFieldValue } | { problem: string };

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function checkString(value: unknown, ok: (text: string) => boolean, problem: string): Checked {
  return typeof value === 'string' && ok(value) ? { value } : { problem };
}

function checkValue(type: CustomFieldType, value: unknown, options: OptionIds): Checked {
  switch (type) {
    case 'text':
      return checkString(value, () => true, 'must be a string');
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return { value: String(value) };
      return checkString(value, (text) => NUMBER.test(text), 'must be a number or a numeric string');
    case 'email':
      return checkString(value, (text) => text.length <= 254 && isEmail(text), 'must be an email address');
    case 'url':
      return checkString(value, isHttpUrl, 'must be an http or https URL');
    case 'phoneNumber':
      return checkString(value, (text) => PHONE.test(text), 'must be a phone number');
    case 'multiSelect': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return { problem: 'must be an array of option ids or keys' };
      const unknown = value.filter((v) => !options.has(v));
      if (unknown.length > 0) return { problem: `has unknown options: ${unknown.join(', ')}` };
      return { value: [...new Set(value.flatMap((v) => options.get(v) ?? []))] };
    }
    case 'address': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'must be an address object' };
      const entries = Object.entries(value);
      const unknown = entries.filter(([name]) => !ADDRESS_PROPERTIES.has(name)).map(([name]) => name);
      if (unknown.length > 0) return { problem: `has unknown address properties: ${unknown.join(', ')}` };
      const notText = entries.filter(([, v]) => typeof v !== 'string').map(([name]) => name);
      if (notText.length > 0) return { problem: `has address properties that are not strings: ${notText.join(', ')}` };
      return { value: Object.fromEntries(entries) as Record<string, string> };
    }
  }
}

/** The strings of a checked value: itself, its option ids, or its address parts. */
const textsOf = (value: CustomFieldValue): string[] => (typeof value === 'string' ? [value] : Object.values(value));

const clears = (value: unknown) => value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** What checking values needs of a workspace's fields: the definitions named, and their multiSelect options. */
export interface CustomFieldRules {
  definitions: Map<string, Awaited<ReturnType<typeof findDefinitions>>[number]>;
  optionsByField: Map<string, OptionIds>;
}

/**
 * The rules for every key of the given inputs, in two queries whatever their number (an import checks
 * a batch of rows with one load). Options are read only for multiSelect fields given a value (not cleared).
 */
export async function loadCustomFieldRules(
  db: DbHandle,
  access: Access,
  entity: 'client' | 'company',
  inputs: readonly Record<string, unknown>[],
): Promise<CustomFieldRules> {
  const keys = [...new Set(inputs.flatMap((input) => Object.keys(input)))];
  const definitions = new Map((keys.length > 0 ? await findDefinitions(db, access, entity, keys) : []).map((d) => [d.key, d]));
  const selectIds = [...definitions.values()]
    .filter((d) => d.type === 'multiSelect' && inputs.some((input) => Object.hasOwn(input, d.key) && !clears(input[d.key])))
    .map((d) => d.id);
  const optionsByField = new Map<string, OptionIds>(selectIds.map((id) => [id, new Map()]));
  for (const o of await optionsOfFields(db, access, selectIds)) optionsByField.get(o.custom_field_id)?.set(o.id, o.id).set(o.key, o.id);
  return { definitions, optionsByField };
}

/**
 * Validates a `customFields` input against the rules of the workspace's definitions for the entity.
 * Returns the normalized values, with `null` for each key the input clears ("", [] or null).
 * Throws errors.badRequest(...) whose `data` lists EVERY failing key as {path: `${pathPrefix}.${key}`, message}
 * (unknown key, wrong type, unknown option, bad email/url/number/phone, unknown address property).
 */
export function checkCustomFields(
  rules: CustomFieldRules,
  entity: 'client' | 'company',
  input: Record<string, unknown>,
  pathPrefix = 'body.customFields',
): Record<string, CustomFieldValue | null> {
  const result: Record<string, CustomFieldValue | null> = {};
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(input)) {
    const definition = rules.definitions.get(key);
    const value = input[key];
    if (!definition) {
      problems.push({ path: `${pathPrefix}.${key}`, message: `is not a custom field of ${entity === 'client' ? 'clients' : 'companies'}` });
      continue;
    }
    if (clears(value)) {
      result[key] = null;
      continue;
    }
    const checked = checkValue(definition.type, value, rules.optionsByField.get(definition.id) ?? new Map());
    if ('problem' in checked) problems.push({ path: `${pathPrefix}.${key}`, message: checked.problem });
    // A request's JSON is refused one before (plugins/request-guards.ts); a CSV import's address JSON is not.
    else if (textsOf(checked.value).some(hasLoneSurrogate)) problems.push({ path: `${pathPrefix}.${key}`, message: NO_LONE_SURROGATE });
    else result[key] = checked.value;
  }
  if (problems.length > 0) {
    throw errors.badRequest(
      problems.length === 1 ? `${problems[0].path} ${problems[0].message}` : `${problems.length} custom fields are invalid`,
      problems,
    );
  }
  return result;
}

/** One input's values checked (checkCustomFields) against the rules loaded for it. */
export async function normalizeCustomFields(
  db: DbHandle,
  access: Access,
  entity: 'client' | 'company',
  input: Record<string, unknown>,
  pathPrefix = 'body.customFields',
): Promise<Record<string, CustomFieldValue | null>> {
  if (Object.keys(input).length === 0) return {};
  return checkCustomFields(await loadCustomFieldRules(db, access, entity, [input]), entity, input, pathPrefix);
}

/** PATCH semantics: merge key by key; a null removes the key. Returns a new object. */
export function mergeCustomFields(existing: CustomFieldValues, changes: Record<string, CustomFieldValue | null>): CustomFieldValues {
  const merged: CustomFieldValues = { ...existing };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
