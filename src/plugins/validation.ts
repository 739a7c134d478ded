import Ajv, { type ErrorObject } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import addFormats from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { isMadePage, releaseServedPage } from '../db/paging.js';
import type { FieldProblem } from '../lib/errors.js';
import { jsonBytesWriter } from '../lib/json-bytes.js';
import { LOWER_CASE } from '../lib/schemas.js';
import { problemsOf } from '../lib/schema-issues.js';

/**
 * Two validators, each route's compiled on its first request (onFirstCall, below):
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
  ajv.addKeyword({ keyword: LOWER_CASE, schemaType: 'boolean', modifying: true, validate: toLowerCase });
  return ajv;
}

/**
 * `x-lowerCase`: the string is handed on in lower case (lib/schemas.ts RefId), so every service receives an
 * id a body or query names as the API answers it, whatever case the caller wrote. Never fails.
 */
function toLowerCase(on: boolean, data: unknown, _schema?: unknown, cxt?: DataValidationCxt): boolean {
  if (on && typeof data === 'string' && cxt?.parentData !== undefined) {
    (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = data.toLowerCase();
  }
  return true;
}

/** `x-maxJsonBytes`: the value serialized as JSON is at most that many bytes (lib/schemas.ts FreeFormObject). */
function fitsInBytes(this: unknown, max: number, data: unknown): boolean {
  // Depth is bounded before validation (request-guards), so this stringify cannot overflow the stack.
  if (Buffer.byteLength(JSON.stringify(data) ?? '') <= max) return true;
  fitsInBytes.errors = [{ keyword: 'x-maxJsonBytes', message: `must be at most ${max} bytes of JSON`, params: { limit: max } }];
  return false;
}
fitsInBytes.errors = undefined as Partial<ErrorObject>[] | undefined;

/**
 * Every schema function the routes declare (validators and serializers, of HEAD routes and every error status
 * too) is compiled on its first call rather than at start-up: most are never called in a process's life, and
 * compiled they held tens of MB. `compileAll` compiles every one still waiting (test/schemas-compile.test.ts
 * does, so a schema that cannot compile fails the suite rather than a first request). Held weakly: an app that
 * is closed (tests build hundreds in one process) leaves nothing here that keeps its schemas or its Ajv.
 */
const waiting = new Set<WeakRef<() => unknown>>();
const forget = new FinalizationRegistry<WeakRef<() => unknown>>((entry) => waiting.delete(entry));

function onFirstCall<F extends (data: unknown) => unknown>(build: () => F): F & { errors?: unknown } {
  let compiled: F | undefined;
  const compile = () => {
    waiting.delete(entry);
    compiled ??= build();
    return compiled;
  };
  const entry = new WeakRef(compile);
  waiting.add(entry);
  forget.register(compile, entry);
  const lazy = ((data: unknown) => {
    const fn = compiled ?? compile();
    const result = fn(data);
    // Fastify reads a validator's failures from the function it called.
    lazy.errors = (fn as { errors?: unknown }).errors;
    return result;
  }) as F & { errors?: unknown };
  return lazy;
}

/** Compiles every schema function not yet called; how many. */
export function compileAll(): number {
  let compiled = 0;
  for (const entry of [...waiting]) {
    const compile = entry.deref();
    waiting.delete(entry);
    if (compile) {
      compile();
      compiled++;
    }
  }
  return compiled;
}

export function installValidators(app: FastifyInstance) {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  const compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
    onFirstCall(() => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object)) as any;
  app.setValidatorCompiler(compiler);
}

const buildSerializerFactory = SerializerSelector();

/** PORTAL_CHECK_JSON_BYTES=1 (the test suite's): every page written as bytes is compared with fast-json-stringify's. */
const checkJsonBytes = process.env.PORTAL_CHECK_JSON_BYTES === '1';

/**
 * Fastify's own serializer compiler (fast-json-stringify), each response schema compiled on its first use. A page
 * pageOf made is written straight into bytes when its schema and values allow it (lib/json-bytes.ts), and emptied
 * once its bytes are made (db/paging.ts releaseServedPage): here, where every answer with a response schema is
 * serialized, rather than in hooks every answer would run.
 */
export function lazySerializers(externalSchemas?: unknown, options?: Parameters<typeof buildSerializerFactory>[1]) {
  const compile = buildSerializerFactory(externalSchemas, options);
  return (route: Parameters<typeof compile>[0]) => {
    const serialize = onFirstCall(() => compile(route));
    let writePage: ReturnType<typeof jsonBytesWriter> | null = null; // null: not compiled yet
    return (data: unknown): string => {
      let json: string | Buffer | undefined;
      if (isMadePage(data)) {
        if (writePage === null) writePage = jsonBytesWriter(route.schema);
        json = writePage?.(data);
        if (json && checkJsonBytes) expectSameJson(json, serialize(data) as string, route);
      }
      json ??= serialize(data) as string;
      releaseServedPage(data);
      // Fastify sends a serializer's Buffer as it is (its type says string).
      return json as string;
    };
  };
}

function expectSameJson(bytes: Buffer, json: string, route: { method: string; url: string; httpStatus: string }): void {
  const written = bytes.toString();
  if (written === json) return;
  let at = 0;
  while (written[at] === json[at]) at++;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
  throw new Error(
    `lib/json-bytes.ts: ${route.method} ${route.url} (${route.httpStatus}) differs from fast-json-stringify at byte ${at}: ${around(written)} against ${around(json)}`,
  );
}

const PART_PREFIX: Record<string, string> = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' };

/** Ajv errors as `{path, message}` with dotted paths: `body.customFields.tier`, `query.limit` (lib/schema-issues.ts problemsOf). */
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
