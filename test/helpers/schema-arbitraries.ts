import fc from 'fast-check';

/** A JSON Schema as the OpenAPI document states it (TypeBox output: the keywords below are all it uses). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  [keyword: string]: unknown;
}

/** Resolves `#/components/schemas/X` references against the document. */
export type Resolve = (schema: JsonSchema) => JsonSchema;

export function resolverOf(doc: { components?: { schemas?: Record<string, JsonSchema> } }): Resolve {
  return (schema) => {
    let current = schema;
    for (let hops = 0; current.$ref && hops < 10; hops++) {
      const name = current.$ref.replace('#/components/schemas/', '');
      const target = doc.components?.schemas?.[name];
      if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
      current = target;
    }
    return current;
  };
}

/** Strings that have broken services: NUL, lone surrogates, control characters, SQL and path syntax, very long text. */
export const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\uffff',
    "'; drop table clients; --",
    '../../etc/passwd',
    '%00',
    '%',
    '\\',
    '__proto__',
    'constructor',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 300, maxLength: 2000 }),
);

/** Values that satisfy the schema (ids drawn from `ids` when given, so requests reach real objects). */
export function validValue(schema: JsonSchema, resolve: Resolve, ids: readonly string[], depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const choices = s.anyOf ?? s.oneOf;
  if (choices) return fc.oneof(...choices.map((c) => validValue(c, resolve, ids, depth + 1)));
  const types = Array.isArray(s.type) ? s.type : [s.type ?? (s.properties ? 'object' : 'string')];
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...s, type }, resolve, ids, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'array': {
      if (depth > 4) return fc.constant([]);
      const min = s.minItems ?? 0;
      return fc.array(validValue(s.items ?? {}, resolve, ids, depth + 1), {
        minLength: min,
        maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)),
      });
    }
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties = s.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) model[key] = validValue(value, resolve, ids, depth + 1);
      const record = fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in properties) });
      if (s.additionalProperties === true && Object.keys(properties).length === 0) {
        return fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)), {
          maxKeys: 3,
        });
      }
      return record;
    }
    default:
      return validString(s, ids);
  }
}

function validString(s: JsonSchema, ids: readonly string[]): fc.Arbitrary<string> {
  switch (s.format) {
    case 'uuid':
      return ids.length > 0 ? fc.oneof(fc.constantFrom(...ids), fc.uuid({ version: 4 })) : fc.uuid({ version: 4 });
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 320));
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 40, 40);
  if (s.pattern && s.pattern !== '\\S') {
    return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY));
  }
  const text = fc.string({ minLength: Math.max(min, 1), maxLength: Math.max(max, Math.max(min, 1)) });
  return s.pattern ? text.filter((v) => /\S/.test(v)) : text;
}

/**
 * Values that break the schema somewhere, or anything at all: a wrong type, a required field dropped,
 * an unknown field added, a hostile string in a valid shape.
 */
export function invalidValue(schema: JsonSchema, resolve: Resolve, ids: readonly string[]): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const mutations: fc.Arbitrary<unknown>[] = [fc.jsonValue({ maxDepth: 3 }), hostileString];
  const properties = s.properties;
  if (properties && Object.keys(properties).length > 0) {
    const valid = validValue(s, resolve, ids) as fc.Arbitrary<Record<string, unknown>>;
    const keys = Object.keys(properties);
    mutations.push(
      fc
        .tuple(valid, fc.constantFrom(...keys), fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileString))
        .map(([v, k, bad]) => ({ ...v, [k]: bad })),
      fc.tuple(valid, fc.constantFrom(...keys)).map(([v, k]) => {
        const copy = { ...v };
        delete copy[k];
        return copy;
      }),
      fc.tuple(valid, fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 1 })).map(([v, k, x]) => ({ ...v, [k]: x })),
    );
  }
  return fc.oneof(...mutations);
}
