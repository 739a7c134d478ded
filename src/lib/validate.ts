import type { Static, TSchema } from 'typebox';
import { Format } from 'typebox/format';
import { Value } from 'typebox/value';
import { type FieldProblem, errors } from './errors.js';
import { FORMAT_CHECKS } from './formats.js';
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
  return value as Static<T>;
}
