import type { Static, TSchema } from 'typebox';
import { Format } from 'typebox/format';
import { Value } from 'typebox/value';
import { type FieldProblem, errors } from './errors.js';
import { FORMAT_CHECKS } from './formats.js';
import { LOWER_CASE } from './schemas.js';
import { type SchemaIssue, problemsOf } from './schema-issues.js';

/**
 * One rule per format for every way in: TypeBox's `Value` (the `portal` command, the CSV import) checks the
 * string formats with the very definitions ajv-formats gives the HTTP validators (lib/formats.ts), not
 * TypeBox's own (its uuid, email… differ). Formats ajv does not know are not checked on either path.
 * The server loads this module only where such a check is made (TypeBox's checker is some MB of code).
 */
Format.Clear();
for (const [name, check] of FORMAT_CHECKS) Format.Set(name, check);

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
  return lowerCased(schema, value) as Static<T>;
}

interface Walked {
  [LOWER_CASE]?: boolean;
  anyOf?: TSchema[];
  items?: TSchema;
  properties?: Record<string, TSchema>;
}

/**
 * `value` with every string its schema marks `x-lowerCase` (lib/schemas.ts RefId) in lower case, as the HTTP
 * validators hand it on (plugins/validation.ts): the `portal` command's services receive the same ids.
 */
function lowerCased(schema: TSchema, value: unknown): unknown {
  const walked = schema as Walked;
  if (walked.anyOf) return walked.anyOf.reduce((inner, branch) => lowerCased(branch, inner), value);
  if (typeof value === 'string') return walked[LOWER_CASE] === true ? value.toLowerCase() : value;
  const { items, properties } = walked;
  if (Array.isArray(value)) return items ? value.map((item) => lowerCased(items, item)) : value;
  if (value === null || typeof value !== 'object' || !properties) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, inner] of Object.entries(properties)) if (Object.hasOwn(out, key)) out[key] = lowerCased(inner, out[key]);
  return out;
}
