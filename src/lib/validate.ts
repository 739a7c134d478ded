import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Static, TSchema } from 'typebox';
import { Format } from 'typebox/format';
import { Value } from 'typebox/value';
import { type FieldProblem, errors } from './errors.js';
import { PATTERN_MESSAGES } from './schemas.js';

/**
 * One rule per format for every way in: TypeBox's `Value` (the `portal` command) checks the string
 * formats with the very definitions ajv-formats gives the HTTP validators (src/plugins/validation.ts),
 * not TypeBox's own (its uuid, email… differ). Formats ajv does not know are not checked on either path.
 */
Format.Clear();
for (const [name, format] of Object.entries(fullFormats)) {
  const check =
    typeof format === 'object' && !(format instanceof RegExp) ? (format.type ?? 'string') === 'string' && format.validate : format;
  if (check instanceof RegExp) Format.Set(name, (value) => check.test(value));
  else if (typeof check === 'string') Format.Set(name, (value) => new RegExp(check, 'u').test(value));
  else if (typeof check === 'function') Format.Set(name, (value) => (check as (v: string) => boolean)(value));
}

/** `format: 'uuid'`: the one UUID rule. */
export const isUuid = (value: string): boolean => Format.Test('uuid', value);
/** `format: 'email'`: the one e-mail address rule. */
export const isEmail = (value: string): boolean => Format.Test('email', value);

/** One failure found by a validator: Ajv's on HTTP (src/plugins/validation.ts), TypeBox's `Value` in the CLI. */
export interface SchemaIssue {
  /** JSON pointer of the failing value (`/customFields/tier`). */
  instancePath: string;
  keyword: string;
  message?: string;
  /** The fields it is about: unknown ones (`additionalProperties`) or missing ones (`required`). */
  fields?: readonly unknown[];
  /** An enum's values. */
  allowedValues?: readonly unknown[];
  /** A failed `pattern`: the pattern. */
  pattern?: unknown;
}

/**
 * The one translation of validation failures, whichever validator found them, into `{path, message}` with
 * dotted paths (`body.customFields.tier`): an unknown field "is not a known field", a missing one "is
 * required", an enum lists its values, a shared text pattern says its rule (lib/schemas.ts Text, Line…);
 * repeats are dropped.
 */
export function problemsOf(issues: Iterable<SchemaIssue>, prefix?: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (segments: string[], message: string) => {
    const path = (prefix === undefined ? segments : [prefix, ...segments]).join('.');
    if (!problems.some((p) => p.path === path && p.message === message)) problems.push({ path, message });
  };
  for (const issue of issues) {
    const segments = issue.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (issue.keyword === 'additionalProperties')
      for (const name of issue.fields ?? []) add([...segments, String(name)], 'is not a known field');
    else if (issue.keyword === 'required') for (const name of issue.fields ?? []) add([...segments, String(name)], 'is required');
    else if (issue.keyword === 'enum') add(segments, `must be one of: ${(issue.allowedValues ?? []).join(', ')}`);
    else if (issue.keyword === 'pattern' && PATTERN_MESSAGES.has(issue.pattern as string))
      add(segments, PATTERN_MESSAGES.get(issue.pattern as string) as string);
    else add(segments, issue.message ?? 'is invalid');
  }
  return problems;
}

/** What is wrong with `value` against `schema` (TypeBox's checks, for the `portal` command), worded as on HTTP. */
export function schemaProblems(schema: TSchema, value: unknown, prefix?: string): FieldProblem[] {
  const issues: SchemaIssue[] = [];
  for (const e of Value.Errors(schema, value)) {
    // `additionalProperties: false` also reports each extra property as "schema is false": named once, below.
    if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) continue;
    const params = e.params as {
      additionalProperties?: string[];
      requiredProperties?: string[];
      allowedValues?: unknown[];
      pattern?: unknown;
    };
    issues.push({
      instancePath: e.instancePath,
      keyword: e.keyword,
      message: e.message,
      fields: params.additionalProperties ?? params.requiredProperties,
      allowedValues: params.allowedValues,
      pattern: params.pattern,
    });
  }
  return problemsOf(issues, prefix);
}

/**
 * `value` as the schema's type, or a 400 listing every problem (errors.invalidFields): the schema's, then
 * those of `rules` — what one field's schema cannot say (a rule across fields, labels that repeat).
 */
export function validInput<T extends TSchema>(schema: T, value: unknown, rules?: (input: Static<T>) => FieldProblem[]): Static<T> {
  const problems = schemaProblems(schema, value);
  if (rules) problems.push(...rules(value as Static<T>));
  if (problems.length > 0) throw errors.invalidFields(problems);
  return value as Static<T>;
}
