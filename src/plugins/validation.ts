import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { FieldProblem } from '../lib/errors.js';
import { problemsOf } from '../lib/validate.js';

/**
 * Two validators, compiled once per route at start-up:
 * - bodies are never coerced (`"5"` is not a number) and unknown fields are errors, not silently dropped
 *   (Fastify's default `removeAdditional` would hide typos);
 * - query strings and path parameters are text on the wire, so they are coerced (`limit=5` → 5).
 * Every failing path is reported (allErrors), not just the first.
 */
function makeAjv(coerce: boolean) {
  const ajv = new Ajv.default({
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  addFormats.default(ajv);
  ajv.addKeyword({ keyword: 'x-maxJsonBytes', schemaType: 'number', validate: fitsInBytes });
  return ajv;
}

/** `x-maxJsonBytes`: the value serialized as JSON is at most that many bytes (lib/schemas.ts FreeFormObject). */
function fitsInBytes(this: unknown, max: number, data: unknown): boolean {
  // Depth is bounded before validation (request-guards), so this stringify cannot overflow the stack.
  if (Buffer.byteLength(JSON.stringify(data) ?? '') <= max) return true;
  fitsInBytes.errors = [{ keyword: 'x-maxJsonBytes', message: `must be at most ${max} bytes of JSON`, params: { limit: max } }];
  return false;
}
fitsInBytes.errors = undefined as Partial<ErrorObject>[] | undefined;

export function installValidators(app: FastifyInstance) {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  const compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as any;
  app.setValidatorCompiler(compiler);
}

const PART_PREFIX: Record<string, string> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' };

/** Ajv errors as `{path, message}` with dotted paths: `body.customFields.tier`, `query.limit` (lib/validate.ts problemsOf). */
export function describeValidationErrors(validation: ErrorObject[], context: string | undefined): FieldProblem[] {
  const prefix = PART_PREFIX[context ?? 'body'] ?? context ?? 'body';
  return problemsOf(
    validation.map((e) => {
      const params = e.params as { additionalProperty?: string; missingProperty?: string; allowedValues?: unknown[]; pattern?: string };
      const field = params.additionalProperty ?? params.missingProperty;
      return { ...e, fields: field === undefined ? undefined : [field], allowedValues: params.allowedValues, pattern: params.pattern };
    }),
    prefix,
  );
}
