// Rule (issue 46, point 1): a page written straight into bytes is byte for byte what fast-json-stringify writes for the
// same schema and value; a schema or a value it does not write as fast-json-stringify would is left to it (undefined).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from 'typebox';
import { Client } from '../src/modules/resources/directory/clients.schemas.js';
import { jsonBytesWriter } from '../src/lib/json-bytes.js';
import { Page } from '../src/lib/schemas.js';

const compileFjs = SerializerSelector()(undefined, {});
/** fast-json-stringify's output for `schema`, as Fastify compiles it. */
const fjs = (schema: unknown) =>
  compileFjs({ schema, method: 'GET', url: '/test', httpStatus: '200' } as never) as (value: unknown) => string;

function written(schema: unknown, value: unknown): string | undefined {
  const write = jsonBytesWriter(schema);
  assert.ok(write, 'the schema is one the writer reads');
  return write(value)?.toString();
}

function assertSameBytes(schema: unknown, value: unknown, message?: string): void {
  assert.equal(written(schema, value), fjs(schema)(value), message);
}

const client = (i: number, fields: Record<string, unknown> = {}) => ({
  id: `0192f0a0-0000-4000-8000-${String(i).padStart(12, '0')}`,
  object: 'client',
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  givenName: 'Ada',
  familyName: 'Lovelace',
  email: `ada${i}@example.com`,
  companyId: '0192f0a0-0000-4000-8000-000000000001',
  companyIds: ['0192f0a0-0000-4000-8000-000000000001', '0192f0a0-0000-4000-8000-000000000002'],
  customFields: {},
  fallbackColor: '#a1b2c3',
  status: 'active',
  creationMethod: 'internalUser',
  avatarImageUrl: undefined,
  firstLoginDate: null,
  lastLoginDate: '2026-11-30T10:00:00.000Z',
  invitedBy: undefined,
  ...fields,
});

test('a page of clients: the same bytes as fast-json-stringify, whatever its strings hold', () => {
  const page = Page(Client);
  const awkward = [
    'quote " and backslash \\',
    'new\nline, tab\t, bell \u0007, delete \u007f',
    'é, ü, ß and 東京',
    'an emoji 😀 and a lone surrogate \ud800',
    '',
    'a'.repeat(5000),
  ];
  const data = awkward.map((text, i) =>
    client(i, {
      givenName: text,
      familyName: text.slice(0, 3),
      customFields: { note: text, tier: ['gold', 'silver'], address: { city: text, zip: 1234 }, missing: undefined },
      avatarImageUrl: i % 2 ? 'https://example.com/a.png' : undefined,
      invitedBy: i % 3 ? undefined : 'someone',
    }),
  );
  assertSameBytes(page, { data, nextToken: 'eyJjIjoiMjAyNiJ9' });
  assertSameBytes(page, { data: [] }, 'an empty page, without a nextToken');
  assertSameBytes(page, { data: [client(1)], nextToken: undefined }, 'an undefined optional property is left out');
});

test('a page larger than the first buffer grows it and stays whole', () => {
  const page = Page(Client);
  const write = jsonBytesWriter(page);
  assert.ok(write);
  const small = { data: [client(0)] };
  const large = { data: Array.from({ length: 1000 }, (_, i) => client(i, { givenName: `name ${'x'.repeat(i % 300)}` })) };
  for (const value of [small, large, small, large]) assert.equal(write(value)?.toString(), fjs(page)(value));
  assert.ok((write(large)?.length ?? 0) > 16 * 1024 * 10, 'the large page is many times the first buffer');
});

test('every kind of field it reads: the same bytes as fast-json-stringify', () => {
  const schema = Type.Object({
    count: Type.Integer(),
    amount: Type.Number(),
    paid: Type.Boolean(),
    nothing: Type.Null(),
    kind: Type.Literal('invoice'),
    state: Type.Enum(['draft', 'open']),
    maybe: Type.Union([Type.String(), Type.Null()]),
    nullableNumber: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
    openApiNullable: Type.Unsafe<string | null>({ type: 'string', nullable: true }),
    lines: Type.Array(Type.Object({ description: Type.String(), quantity: Type.Integer() })),
    tags: Type.Array(Type.String()),
    free: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
    nested: Type.Object({ inner: Type.Optional(Type.String()) }),
    untyped: Type.Unknown(),
    withDefault: Type.Optional(Type.String({ default: 'the default' })),
  });
  const plain = JSON.parse(JSON.stringify(schema));
  // Type.Union of a string and null is an anyOf, which the writer leaves to fast-json-stringify: written as a type list.
  plain.properties.maybe = { type: ['string', 'null'] };
  const value = {
    count: 42,
    amount: -0.125,
    paid: false,
    nothing: null,
    kind: 'whatever was passed: the const is written',
    state: 'open',
    maybe: null,
    nullableNumber: 7,
    openApiNullable: null,
    lines: [
      { description: 'a "line"', quantity: 2 },
      { description: 'two', quantity: 0 },
    ],
    tags: [],
    free: { a: 1, b: [true, null], c: { d: 'e' } },
    nested: {},
    untyped: 'text',
  };
  assertSameBytes(plain, value);
  assertSameBytes(plain, { ...value, maybe: 'x', nullableNumber: null, openApiNullable: 'y', untyped: 12.5, free: {} });
  assertSameBytes(plain, { ...value, amount: 1e21, count: -0, untyped: null, nested: { inner: 'i' }, withDefault: 'given' });
  assert.match(
    written(plain, value) ?? '',
    /"untyped":"text","withDefault":"the default"}$/,
    'an absent property with a default: its default, after the required ones',
  );
});

test('a value fast-json-stringify would coerce or reject is left to it', () => {
  const schema = Type.Object({
    name: Type.String(),
    at: Type.String({ format: 'date-time' }),
    count: Type.Integer(),
    amount: Type.Number(),
    paid: Type.Boolean(),
    free: Type.Unsafe<object>({ type: 'object', additionalProperties: true }),
    items: Type.Array(Type.String()),
    optional: Type.Optional(Type.String()),
  });
  const plain = JSON.parse(JSON.stringify(schema));
  const good = { name: 'n', at: '2026-12-01T00:00:00.000Z', count: 1, amount: 1.5, paid: true, free: {}, items: [] };
  assert.equal(written(plain, good), fjs(plain)(good));
  const left: [string, Record<string, unknown>][] = [
    ['a number for a string', { name: 5 }],
    ['a Date for a date-time', { at: new Date(0) }],
    ['a fraction for an integer', { count: 1.5 }],
    ['NaN for a number', { amount: Number.NaN }],
    ['a string for a boolean', { paid: 'yes' }],
    ['an array for a free-form object', { free: [] }],
    ['a free-form object with its own toJSON', { free: { toJSON: () => 'x' } }],
    ['a string in place of an array', { items: 'a,b' }],
    ['null for a string that is not nullable', { optional: null }],
    ['a required property missing', { name: undefined }],
  ];
  for (const [why, change] of left) assert.equal(written(plain, { ...good, ...change }), undefined, why);
  assert.equal(written(plain, null), undefined, 'null for the object');
});

test('a schema with what the writer does not read compiles to nothing: fast-json-stringify writes it', () => {
  const unread = {
    anyOf: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    $ref: { $ref: '#/definitions/x' },
    patternProperties: { type: 'object', patternProperties: { '^x': { type: 'string' } } },
    'declared and additional properties': { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    'a required property not declared': { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
    'an object with neither': { type: 'object' },
    'a tuple': { type: 'array', items: [{ type: 'string' }] },
    'a type list of two non-null types': { type: ['string', 'integer'] },
    'an unsafe string': { type: 'string', format: 'unsafe' },
    'a nested anyOf': { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
  };
  for (const [why, schema] of Object.entries(unread)) assert.equal(jsonBytesWriter(schema), undefined, why);
});
