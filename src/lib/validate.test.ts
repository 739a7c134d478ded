import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Type } from 'typebox';
import { errors } from './errors.js';
import { Email, Id, Name, RefId, Timestamp } from './schemas.js';
import { isEmail, isUuid } from './formats.js';
import { schemaProblems, validInput } from './validate.js';

// The HTTP validators' set-up (src/plugins/validation.ts): the same ajv-formats definitions.
const ajv = new Ajv.default({ allErrors: true, strict: false });
addFormats.default(ajv);

describe('one rule per format for the HTTP validators and the portal command', () => {
  const samples: [string, object, string[]][] = [
    [
      'uuid',
      Id,
      [
        '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
        '3F1C2B4A-5D6E-4F70-8A9B-0C1D2E3F4A5B',
        'urn:uuid:3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
        '3f1c2b4a5d6e4f708a9b0c1d2e3f4a5b',
        'nope',
        '',
      ],
    ],
    [
      'email',
      Email,
      [
        'ada@example.com',
        'Ada.Lovelace+x@sub.example.co.uk',
        '"quoted"@example.com',
        'a@[127.0.0.1]',
        'a@b',
        'not-an-email',
        'a b@example.com',
        '',
      ],
    ],
    [
      'date-time',
      Timestamp,
      ['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00+01:00', '2026-02-30T10:00:00Z', '2026-11-22 10:00:00', 'yesterday'],
    ],
    ['uri', Type.String({ format: 'uri' }), ['https://example.com/x?y=1', 'mailto:a@b.c', '/relative', 'not a uri']],
  ];
  for (const [format, schema, values] of samples) {
    test(`${format}: TypeBox's Value accepts exactly what ajv accepts`, () => {
      const check = ajv.compile(schema);
      for (const value of values)
        assert.equal(schemaProblems(schema as never, value).length === 0, check(value), `${format} ${JSON.stringify(value)}`);
    });
  }

  test('isUuid and isEmail are the formats', () => {
    assert.equal(isUuid('urn:uuid:3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b'), true);
    assert.equal(isUuid('3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5'), false);
    assert.equal(isEmail('"quoted"@example.com'), false, 'ajv-formats, not TypeBox, decides');
    assert.equal(isEmail('ada@example.com'), true);
  });
});

describe('schemaProblems and validInput', () => {
  const Input = Type.Object(
    { name: Name, role: Type.Optional(Type.Enum(['admin', 'staff'])), ids: Type.Optional(Type.Array(Id)) },
    { additionalProperties: false },
  );

  test('problems are worded as the HTTP 400s: dotted paths, unknown and missing fields, enums listed', () => {
    assert.deepEqual(schemaProblems(Input, { role: 'owner', ids: ['x', '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b'], extra: 1 }), [
      { path: 'name', message: 'is required' },
      { path: 'extra', message: 'is not a known field' },
      { path: 'role', message: 'must be one of: admin, staff' },
      { path: 'ids.0', message: 'must match format "uuid"' },
    ]);
    assert.deepEqual(schemaProblems(Input, { name: 'A' }), []);
  });

  test('validInput returns the input, or throws errors.invalidFields with the schema problems then the rules', () => {
    assert.deepEqual(validInput(Input, { name: 'A' }), { name: 'A' });
    const rule = () => [{ path: 'ids', message: 'must not repeat' }];
    assert.throws(() => validInput(Input, { name: ' ' }), errors.invalidFields([{ path: 'name', message: 'must match pattern "\\S"' }]));
    assert.throws(
      () => validInput(Input, { name: ' ' }, rule),
      (error: { message: string; data: unknown }) => {
        assert.equal(error.message, '2 fields are invalid');
        assert.deepEqual(error.data, [
          { path: 'name', message: 'must match pattern "\\S"' },
          { path: 'ids', message: 'must not repeat' },
        ]);
        return true;
      },
    );
  });

  test('errors.invalidFields: `path message` for one problem, a count for several, every problem in data', () => {
    const one = errors.invalidFields([{ path: 'body.email', message: 'must match format "email"' }]);
    assert.deepEqual(
      [one.statusCode, one.code, one.message, one.data],
      [400, 'bad_request', 'body.email must match format "email"', [{ path: 'body.email', message: 'must match format "email"' }]],
    );
    const two = errors.invalidFields([
      { path: 'a', message: 'x' },
      { path: 'b', message: 'y' },
    ]);
    assert.deepEqual(
      [two.message, two.data],
      [
        '2 fields are invalid',
        [
          { path: 'a', message: 'x' },
          { path: 'b', message: 'y' },
        ],
      ],
    );
  });
});

describe('ids a body names (RefId) are read in lower case by the portal command too, as by the HTTP validators', () => {
  test('validInput hands on every RefId in lower case, in objects, arrays and unions; other strings as given', () => {
    const schema = Type.Object({
      channelId: RefId('a channel'),
      clientIds: Type.Optional(Type.Array(RefId())),
      companyAccessList: Type.Optional(Type.Union([Type.Array(RefId('a company', { uuid: true })), Type.Null()])),
      name: Name,
    });
    const given = {
      channelId: 'ABC-1',
      clientIds: ['X', 'y'],
      companyAccessList: ['3F1C2B4A-5D6E-4F70-8A9B-0C1D2E3F4A5B'],
      name: 'Keep Me',
    };
    assert.deepEqual(validInput(schema, given), {
      channelId: 'abc-1',
      clientIds: ['x', 'y'],
      companyAccessList: ['3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b'],
      name: 'Keep Me',
    });
    assert.deepEqual(validInput(schema, { channelId: 'A', companyAccessList: null, name: 'n' }), {
      channelId: 'a',
      companyAccessList: null,
      name: 'n',
    });
    assert.equal(given.channelId, 'ABC-1', 'the given value is not changed');
  });
});
