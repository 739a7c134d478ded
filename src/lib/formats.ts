import { fullFormats } from 'ajv-formats/dist/formats.js';

/**
 * The string formats of ajv-formats, the definitions the HTTP validators use (src/plugins/validation.ts), for
 * code that checks one value: the `portal` command's TypeBox checks (lib/validate.ts) take them from here too,
 * so every way in has one rule per format, without loading TypeBox's value checker into the server.
 */
export const FORMAT_CHECKS: ReadonlyMap<string, (value: string) => boolean> = new Map(
  Object.entries(fullFormats).flatMap(([name, format]): [string, (value: string) => boolean][] => {
    const check =
      typeof format === 'object' && !(format instanceof RegExp) ? (format.type ?? 'string') === 'string' && format.validate : format;
    if (check instanceof RegExp) return [[name, (value) => check.test(value)]];
    if (typeof check === 'string') {
      const pattern = new RegExp(check, 'u');
      return [[name, (value) => pattern.test(value)]];
    }
    if (typeof check === 'function') return [[name, check as (value: string) => boolean]];
    return [];
  }),
);

/** `format: 'uuid'`: the one UUID rule. */
export const isUuid = FORMAT_CHECKS.get('uuid') as (value: string) => boolean;
/** `format: 'email'`: the one e-mail address rule. */
export const isEmail = FORMAT_CHECKS.get('email') as (value: string) => boolean;
