/**
 * A response schema's JSON written straight into bytes, for the pages of a list (plugins/validation.ts). Building a
 * page's JSON as a string (fast-json-stringify) made about half of what a page of 100 allocated: a string per field
 * and per quote, joined, flattened, then copied into bytes for the socket. Each scavenge copies what the requests in
 * flight hold, so a page's garbage is paid again by every other request (bench/README.md, 2026-12-01).
 *
 * The bytes are exactly fast-json-stringify's for the values written here: the required properties first, then the
 * others, each in the schema's order; an undefined property written as its default if it has one, else left out; a
 * const written as declared; strings escaped by JSON.stringify's rules.
 * Everything else is not written: a schema this does not read (anyOf, $ref, patternProperties, declared properties
 * with additional ones…) compiles to undefined, and a value its schema would have fast-json-stringify coerce (a number
 * for a string, a Date, a missing required property) makes the writer answer undefined. Both leave the answer to
 * fast-json-stringify. PORTAL_CHECK_JSON_BYTES=1 (the test suite's) compares every page with its output.
 */

/** Writes `value` as its schema says; false when the value is not one it writes as fast-json-stringify would. */
type Write = (out: JsonBytes, value: unknown) => boolean;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const NULL = Buffer.from('null');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const EMPTY_OBJECT = Buffer.from('{}');

/** A growing buffer of JSON. */
class JsonBytes {
  bytes: Buffer;
  at = 0;

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafe(size);
  }

  /** Room for `length` more bytes. */
  room(length: number): void {
    if (this.at + length <= this.bytes.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.at + length));
    this.bytes.copy(bigger, 0, 0, this.at);
    this.bytes = bigger;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.at++] = value;
  }

  /** A few bytes (a literal, a default): copied one by one, cheaper than a call to set() for so few. */
  raw(bytes: Uint8Array): true {
    const length = bytes.length;
    this.room(length);
    const into = this.bytes;
    let at = this.at;
    for (let i = 0; i < length; i++) into[at++] = bytes[i];
    this.at = at;
    return true;
  }

  /** Text known to be ASCII (a number's digits). */
  ascii(text: string): true {
    this.room(text.length);
    for (let i = 0; i < text.length; i++) this.bytes[this.at++] = text.charCodeAt(i);
    return true;
  }

  /** Any text, as UTF-8. */
  text(text: string): true {
    this.room(text.length * 3);
    this.at += this.bytes.write(text, this.at);
    return true;
  }

  /** A JSON string: printable ASCII byte by byte; anything else (escapes, controls, non-ASCII) by JSON.stringify. */
  string(value: string): true {
    const length = value.length;
    this.room(length + 2);
    const bytes = this.bytes;
    let at = this.at;
    bytes[at++] = QUOTE;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) return this.text(JSON.stringify(value));
      bytes[at++] = code;
    }
    bytes[at++] = QUOTE;
    this.at = at;
    return true;
  }
}

/** Keywords this does not read: a schema with one is left to fast-json-stringify. */
const UNREAD = ['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties', 'prefixItems'];

/** The type fast-json-stringify infers for a schema without one (its inferTypeByKeyword). */
function typeOf(schema: Record<string, unknown>): unknown {
  if (schema.type !== undefined) return schema.type;
  const has = (keywords: string[]) => keywords.some((keyword) => keyword in schema);
  if (has(['properties', 'required', 'additionalProperties', 'maxProperties', 'minProperties', 'dependencies'])) return 'object';
  if (has(['items', 'additionalItems', 'maxItems', 'minItems', 'uniqueItems', 'contains'])) return 'array';
  if (has(['maxLength', 'minLength', 'pattern'])) return 'string';
  if (has(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'])) return 'number';
  return undefined;
}

/** An object JSON.stringify writes as fast-json-stringify does: plain, without a toJSON of its own. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
};

/** A string field's writer: one function, so that an object's code can write its strings inline (objectWriter). */
const writeString: Write = (out, value) => typeof value === 'string' && out.string(value);

/** No enumerable key (most custom fields are `{}`): no need for JSON.stringify. */
function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

function writerOf(schema: unknown): Write | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  if (UNREAD.some((keyword) => keyword in s)) return undefined;
  const type = typeOf(s);
  if (s.nullable === true) {
    const inner = writerOf({ ...s, nullable: false });
    return inner && ((out, value) => (value === null ? out.raw(NULL) : inner(out, value)));
  }
  if (s.const !== undefined) {
    if (Array.isArray(type)) return undefined;
    const bytes = Buffer.from(JSON.stringify(s.const));
    return (out) => out.raw(bytes);
  }
  if (Array.isArray(type)) {
    // [T, "null"]: what a nullable field declares.
    const others = type.filter((t) => t !== 'null');
    if (type.length !== 2 || others.length !== 1 || !['string', 'integer', 'number', 'boolean'].includes(others[0])) return undefined;
    const inner = writerOf({ ...s, type: others[0] });
    return inner && ((out, value) => (value === null ? out.raw(NULL) : inner(out, value)));
  }
  switch (type) {
    case 'string':
      return s.format === 'unsafe' ? undefined : writeString;
    case 'integer':
      return (out, value) => Number.isInteger(value) && out.ascii(`${value}`);
    case 'number':
      return (out, value) => typeof value === 'number' && Number.isFinite(value) && out.ascii(`${value}`);
    case 'boolean':
      return (out, value) => typeof value === 'boolean' && out.raw(value ? TRUE : FALSE);
    case 'null':
      return (out, value) => value === null && out.raw(NULL);
    case 'array':
      return arrayWriter(s);
    case 'object':
      return objectWriter(s);
    case undefined:
      // fast-json-stringify writes an untyped value (an enum's) with JSON.stringify.
      return (out, value) => {
        if (typeof value === 'string') out.string(value);
        else if (value === null || typeof value === 'number' || typeof value === 'boolean') out.text(JSON.stringify(value));
        else return false;
        return true;
      };
    default:
      return undefined;
  }
}

function arrayWriter(schema: Record<string, unknown>): Write | undefined {
  if ('additionalItems' in schema) return undefined;
  const item = writerOf(schema.items);
  if (!item) return undefined;
  return (out, value) => {
    if (!Array.isArray(value)) return false;
    out.byte(0x5b);
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.byte(COMMA);
      if (!item(out, value[i])) return false;
    }
    out.byte(0x5d);
    return true;
  };
}

function objectWriter(schema: Record<string, unknown>): Write | undefined {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(properties);
  const extra = schema.additionalProperties;
  if (names.length === 0) {
    // A free-form object (`additionalProperties: true`): fast-json-stringify writes each defined key with JSON.stringify.
    if (extra !== true) return undefined;
    return (out, value) => {
      if (!isPlainObject(value)) return false;
      if (isEmpty(value)) out.raw(EMPTY_OBJECT);
      else out.text(JSON.stringify(value));
      return true;
    };
  }
  if (extra !== undefined && extra !== false) return undefined;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  if ([...required].some((name) => typeof name !== 'string' || !names.includes(name))) return undefined;
  // fast-json-stringify's order: the required properties first, then the others, each in the schema's order.
  names.sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const schemas = names.map((name) => properties[name] as Record<string, unknown>);
  const writers = schemas.map(writerOf);
  if (writers.some((write) => write === undefined)) return undefined;
  // Written as code, as fast-json-stringify's and db/row-maker.ts's: each property read by its literal name (a loop
  // reading object[name] for one name after another is a megamorphic lookup per field), a string field written inline.
  const keys = names.map((name) => Buffer.from(`${JSON.stringify(name)}:`));
  const commaKeys = names.map((name) => Buffer.from(`,${JSON.stringify(name)}:`));
  const steps = names.map((name, i) => {
    // An undefined property: its default written if it has one (as fast-json-stringify does), else left out unless required.
    const absent =
      schemas[i].default !== undefined
        ? `out.raw(first ? defaults[${i}] : commaDefaults[${i}]); first = false;`
        : required.has(name)
          ? 'return false;'
          : '';
    const write =
      writers[i] === writeString ? `if (typeof v !== 'string') return false; out.string(v);` : `if (!writers[${i}](out, v)) return false;`;
    return `v = value[${JSON.stringify(name)}];
    if (v === undefined) { ${absent} } else { if (first) { ${inline(keys[i])} } else { ${inline(commaKeys[i])} } first = false; ${write} }`;
  });
  const defaults = names.map((name, i) => Buffer.from(`${JSON.stringify(name)}:${JSON.stringify(schemas[i].default)}`));
  const commaDefaults = defaults.map((bytes) => Buffer.concat([Buffer.from(','), bytes]));
  return new Function(
    'writers',
    'defaults',
    'commaDefaults',
    `return function writeObject(out, value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      out.byte(0x7b);
      let first = true;
      let v, b, at;
      ${steps.join('\n')}
      out.byte(0x7d);
      return true;
    };`,
  )(writers, defaults, commaDefaults) as Write;
}

/**
 * Code writing these bytes (a property's key) as constants, one store each: the keys are most of a page's bytes that
 * are not its values, and copying them from a buffer in a loop cost twice as much (bench/README.md, 2026-12-01 (morning)).
 */
function inline(bytes: Uint8Array): string {
  const stores = Array.from(bytes, (byte, i) => `b[at + ${i}] = ${byte};`).join(' ');
  return `out.room(${bytes.length}); b = out.bytes; at = out.at; ${stores} out.at = at + ${bytes.length};`;
}

/** A writer's first buffer: the size of its last answer, within these bounds (a larger page grows it as it goes). */
const MIN_START = 16 * 1024;
const MAX_START = 1024 * 1024;

/**
 * The writer of a response schema, or undefined when the schema has what it does not read. The writer answers the
 * value's JSON bytes, or undefined when fast-json-stringify must write it (a value it would coerce or reject).
 */
export function jsonBytesWriter(schema: unknown): ((value: unknown) => Buffer | undefined) | undefined {
  const write = writerOf(schema);
  if (!write) return undefined;
  let start = MIN_START;
  return (value) => {
    const out = new JsonBytes(start);
    if (!write(out, value)) return undefined;
    // The last answer's size: a route's pages are alike, and one large page does not make every later one allocate as much.
    start = Math.min(MAX_START, Math.max(MIN_START, out.at + 1024));
    return out.bytes.subarray(0, out.at);
  };
}
