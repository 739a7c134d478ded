import type { FieldProblem } from './errors.js';
import { PATTERN_MESSAGES } from './schemas.js';

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
