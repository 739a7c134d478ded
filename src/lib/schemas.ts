import { Type, type TSchema } from 'typebox';

/** Shared TypeBox building blocks: every route schema is composed from these. */
export const Id = Type.String({
  format: 'uuid',
  description: "UUID in version 4's layout; a created row's first 48 bits are its creation time in milliseconds",
});

/** The keyword by which the validators hand a string on in lower case (plugins/validation.ts, lib/validate.ts); published as an x- extension. */
export const LOWER_CASE = 'x-lowerCase';
const REF_ID_RULE = 'any case: read as the lower-case id the API answers';

/**
 * An id a request names in its body or query (a sender, a channel, a client, a template…), one type for every
 * route: read in lower case by the validation, whatever case the caller wrote, so services compare it with
 * stored ids as it comes. Any string of 1–100 characters (an id is opaque: one that names nothing is the
 * field's 400 from the service, "is not a … of this workspace"); `uuid` where the route has always refused any
 * other string with the schema's 400. Ids in paths follow another rule (PathId, below).
 */
export const RefId = (description?: string, { uuid = false, ...options }: { uuid?: boolean; deprecated?: boolean } = {}) =>
  Type.String({
    ...(uuid ? { format: 'uuid' } : { minLength: 1, maxLength: 100 }),
    ...options,
    [LOWER_CASE]: true,
    description: description === undefined ? REF_ID_RULE : `${description}; ${REF_ID_RULE}`,
  });
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 UTC with milliseconds' });
/**
 * A timestamp or null, as one type list (OpenAPI 3.1) rather than a union: the response serializer
 * writes a type list with a typeof check, but must run a validator on every value to pick a union's branch.
 */
export const NullableTimestamp = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  format: 'date-time',
  description: 'RFC 3339 UTC with milliseconds, or null',
});
/** A name as given: 1–200 characters, not only white space. */
export const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

/**
 * Free text a caller gives (a message, a title, a description, an answer): no control character
 * (U+0000–U+001F, U+007F–U+009F) other than tab, line feed and carriage return, so no stored text answers
 * as six bytes of JSON escape per character; and no lone surrogate (U+D800–U+DFFF without its pair), which no
 * UTF-8 can hold (SQLite stored three U+FFFD for one, PostgreSQL one). One in a request's JSON body or query
 * is refused before any schema sees it (plugins/request-guards.ts), whatever its field; these patterns hold
 * text parsed later too (a contract's variableValues sent as JSON text). One pattern per kind of text, shared: a validator (Ajv) keeps
 * one RegExp per pattern for every schema that uses it. A character is one outside the refused ranges, or a
 * surrogate pair (so the patterns mean the same with or without the RegExp `u` flag: Ajv sets it, TypeBox's
 * checker of the CLI and the CSV import may not). The patterns are linear in the text's length: no part of a
 * pattern can match what the next part matches (a pattern such as `^[^\n]*\S[^\n]*$` backtracks
 * quadratically, seconds of CPU for a 1 MiB body, and Ajv runs it even past `maxLength`).
 */
const CONTROL = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';
/** Controls, line feed and carriage return included: what a one-line text may not hold (a tab it may). */
const CONTROL_OR_NEWLINE = '\\u0000-\\u0008\\u000A-\\u001F\\u007F-\\u009F';
const SURROGATE = '\\uD800-\\uDFFF';
const PAIR = '[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]';
/** One character that is none of `refused` (a class's contents) and no lone surrogate. */
const char = (refused: string) => `(?:[^${refused}${SURROGATE}]|${PAIR})`;
const TEXT_PATTERN = `^${char(CONTROL)}*$`;
/** White space that is not a control, then a visible character, then anything but a control. */
const NON_BLANK_TEXT_PATTERN = `^[^\\S${CONTROL}]*${char(`\\s${CONTROL}`)}${char(CONTROL)}*$`;
const LINE_PATTERN = `^[^\\S${CONTROL_OR_NEWLINE}]*${char(`\\s${CONTROL_OR_NEWLINE}`)}${char(CONTROL_OR_NEWLINE)}*$`;

const TEXT_RULE = 'no control characters other than tab, line feed and carriage return, and no lone surrogates';
const NON_BLANK_TEXT_RULE = `not only white space; ${TEXT_RULE}`;
const LINE_RULE = 'one line, not only white space; no control characters other than tab, and no lone surrogates';

/** How a failure of each shared pattern is worded in a 400 (lib/schema-issues.ts problemsOf), rather than the pattern itself. */
export const PATTERN_MESSAGES: ReadonlyMap<string, string> = new Map([
  [TEXT_PATTERN, `must have ${TEXT_RULE}`],
  [NON_BLANK_TEXT_PATTERN, `must have a character other than white space, and ${TEXT_RULE}`],
  [LINE_PATTERN, 'must be one line with a character other than white space, no control characters other than tab, and no lone surrogates'],
]);

interface TextOptions {
  maxLength: number;
  minLength?: number;
  description: string;
}
const text = (pattern: string, rule: string, { description, ...lengths }: TextOptions) =>
  Type.String({ ...lengths, pattern, description: `${description}; ${rule}` });
/** Free text, line breaks allowed, empty allowed (a description, a body, an answer). */
export const Text = (options: TextOptions) => text(TEXT_PATTERN, TEXT_RULE, options);
/** Free text with at least one visible character (a message). */
export const NonBlankText = (options: TextOptions) => text(NON_BLANK_TEXT_PATTERN, NON_BLANK_TEXT_RULE, options);
/** One line with at least one visible character (a name, a title). */
export const Line = (options: TextOptions) => text(LINE_PATTERN, LINE_RULE, options);

/**
 * Free-form JSON a caller sends (an audit entry's `context`, an app event's payload): at most this many bytes
 * once serialized (validation keyword `x-maxJsonBytes`, plugins/validation.ts; an `x-` extension, as an OpenAPI
 * schema takes no other keyword of its own), so no entry, and no page of them, grows without bound. Every JSON
 * body is also at most MAX_BODY_DEPTH levels deep (plugins/request-guards.ts).
 */
const FREE_FORM_MAX_BYTES = 16_384;
export const MAX_BODY_DEPTH = 32;
const FREE_FORM_RULE = `at most ${FREE_FORM_MAX_BYTES} bytes of JSON and ${MAX_BODY_DEPTH} levels of nesting (a 400 otherwise)`;
/** A free-form object a caller sends. */
export const FreeFormObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    'x-maxJsonBytes': FREE_FORM_MAX_BYTES,
    description: `${description}; ${FREE_FORM_RULE}`,
  });
/** Any JSON value a caller sends, bounded like a free-form object. */
export const FreeFormValue = (description: string) =>
  Type.Unsafe<unknown>({ 'x-maxJsonBytes': FREE_FORM_MAX_BYTES, description: `${description}; ${FREE_FORM_RULE}` });
/** An e-mail address as given. */
export const Email = Type.String({ format: 'email', maxLength: 320 });

export const ErrorBody = Type.Object(
  {
    code: Type.String({
      description:
        'stable, for programs: bad_request, unauthorized, payment_failed, forbidden, not_found, conflict, idempotency_key_in_use, idempotency_key_reused, method_not_allowed, payload_too_large, unsupported_media_type, rate_limit_exceeded, internal_error, unavailable, request_timeout',
    }),
    message: Type.String({ description: 'for humans' }),
    data: Type.Any({ description: '400: array of {path, message}; 500: {requestId}; otherwise null' }),
  },
  { $id: 'Error', title: 'Error' },
);

export const QuotaExceededBody = Type.Object({ error: Type.Literal('quota limit reached') }, { $id: 'QuotaExceeded' });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: malformed JSON, wrong types or failed rules; `data` lists each failing `{path, message}`',
  401: 'Missing, unknown, revoked or expired credentials',
  402: 'Payment failed (`payment_failed`): the card was declined; `data` is {paymentId, declineCode}',
  403: 'Authenticated but not allowed',
  404: 'No such route or object in this workspace',
  409: 'Conflict with an existing object',
  413: 'Body over 1 MiB',
  415: 'Body is not JSON',
  429: 'Burst limit (`rate_limit_exceeded`, with Retry-After) or daily quota (`{"error":"quota limit reached"}`)',
  500: 'Internal error; `data.requestId` finds it in the logs',
  503: 'Storage or limit state unavailable; with Retry-After',
};

const errorRef = Type.Ref('Error');

/** Error responses for a route's schema: each status documented with the shared error body. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    const body = status === 429 ? Type.Union([errorRef, Type.Ref('QuotaExceeded')]) : errorRef;
    out[status] = { ...body, description: ERROR_DESCRIPTIONS[status] } as TSchema;
  }
  return out;
}

/** The errors every authenticated route can answer. */
const AUTHENTICATED_ERRORS = [400, 401, 404, 429, 500, 503];

/** `{data, nextToken}` page of the given item schema (contract §4). */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    nextToken: Type.Optional(Type.String({ description: 'present only when more rows exist; pass back as `nextToken`' })),
  });
}

/** Query parameters every list takes. */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: '1–1000, default 100: the most a page holds; it ends earlier, with a nextToken, past 4 MiB of its rows’ text',
    }),
  ),
  nextToken: Type.Optional(Type.String({ description: 'opaque token from the previous page' })),
};

/**
 * A list's search (`q`): case-insensitive prefix search on words (lib/search-terms.ts), combined with the list's
 * other filters and its caller's narrowing, paged like the list. What each list searches is the description's.
 */
export const SearchQuery = (finds: string) =>
  Type.Optional(
    Line({
      minLength: 1,
      maxLength: 100,
      description:
        `case-insensitive prefix search, 1–100 characters: ${finds}. Several words match words in order ` +
        '(`ada lo` finds Ada Lovelace); white space runs count as one space. With the other filters, newest first, paged like the list',
    }),
  );

export const DeletedBody = Type.Object({ id: Type.String(), object: Type.String(), deleted: Type.Literal(true) });

/**
 * `customFields` as answered: key → string, array of option ids, or address object. Declared as an
 * open object so the serializer copies it as is (a per-value anyOf would cost a validation each).
 */
/** A stored custom-field value: string (text, number as numeric string, email, url, phoneNumber), option ids, or an address. */
export type CustomFieldValue = string | string[] | Record<string, string>;
export type CustomFieldValues = Record<string, CustomFieldValue>;

export const CustomFieldsOutput = Type.Unsafe<CustomFieldValues>({
  type: 'object',
  additionalProperties: true,
  description: 'custom field key → string (text, number, email, url, phoneNumber), array of option ids (multiSelect) or address object',
});

/** Keys of `customFields` in one request: bounds the work (and the query) a body can ask for. */
const MAX_CUSTOM_FIELDS_PER_REQUEST = 100;

/** `customFields` as given: validated against the workspace's definitions by the service. */
export const CustomFieldsInput = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_CUSTOM_FIELDS_PER_REQUEST,
  description: 'custom field key → value; "", [] or null clears a field. Unknown keys and wrong types are 400s naming the key.',
});

/**
 * An id in a path (`{id}`, `{workspaceId}`, `{installId}`, `{keyId}`…), one rule for every /v1 and /admin route:
 * any string, compared exactly with the ids the API answers (lower-case UUIDs), never case-folded. So a string
 * that is not such an id — an upper-case form of an existing one included — is a 404 like an unknown id,
 * not a 400 (an id is opaque to its caller), and a route cannot answer for it what another route refuses.
 * What no id can be is refused before any route sees it (plugins/request-guards.ts, the router): a 400.
 */
export const PathId = (description = 'object id') =>
  Type.String({
    description:
      `${description}: a UUID as answered (lower case); any other string is a 404, as an unknown id, except a 400 for one ` +
      'no id can be (a NUL character, over 100 characters, a percent escape that is not UTF-8)',
  });

/** The `{id}` of a route. */
export const IdParams = Type.Object({ id: PathId() }, { additionalProperties: false });

/** Documented errors of a read, a write (create or change) and a delete on an authenticated route. */
export const READ_ERRORS = errorResponses(...AUTHENTICATED_ERRORS);
export const WRITE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403, 409, 413, 415);
export const DELETE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403);
/** A delete that a conflict may refuse (the workspace's last admin). */
export const CONFLICTING_DELETE_ERRORS = errorResponses(...AUTHENTICATED_ERRORS, 403, 409);

/** The admin surface (src/plugins/admin.ts): what every admin route's OpenAPI entry shares. */
export const adminDoc = { tags: ['admin'], security: [{ adminToken: [] }] };
/** The errors of an admin route: no 403 (the token is all or nothing) and no quota. */
export const ADMIN_ERRORS = errorResponses(400, 401, 404, 429, 500, 503);
export const ADMIN_WRITE_ERRORS = errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503);
/** `/admin/workspaces/:workspaceId/…`: the admin plugin answers 404 for an unknown workspace before the handler. */
export const WorkspaceParams = Type.Object({ workspaceId: PathId('workspace id') }, { additionalProperties: false });
