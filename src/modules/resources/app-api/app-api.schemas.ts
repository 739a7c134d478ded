import { type Static, Type } from 'typebox';
import { APP_API_METHODS } from '../../../db/schema.js';
import { Id, PageQuery, Text, Timestamp } from '../../../lib/schemas.js';

/** A resource's name: what an app calls it in its own API (lower-case letters, digits and dashes, 1–64). */
export const NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;
const PATH_PATTERN = '^/[A-Za-z0-9._~{}/:-]{0,499}$';

export const AppApiResource = Type.Object(
  {
    id: Id,
    object: Type.Literal('appApiResource'),
    name: Type.String({ description: 'unique per app and workspace; the path segment of /v1/app-api-resources/{name}' }),
    appId: Id,
    description: Type.Optional(Type.String()),
    methods: Type.Array(Type.Enum([...APP_API_METHODS]), {
      description: 'the HTTP methods the resource takes, in the order GET, POST, PUT, PATCH, DELETE',
    }),
    path: Type.Optional(Type.String({ description: "the path template under the app's own base URL, e.g. /orders/{orderId}" })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    title: 'AppApiResource',
    description:
      'A resource an app declares its own API exposes. Seen only by the app that declared it (its app key or its bearer tokens).',
  },
);
export type AppApiResource = Static<typeof AppApiResource>;

export const AppApiResourceReplace = Type.Object(
  {
    description: Type.Optional(Text({ maxLength: 1000, description: 'what the resource is, for people reading the declaration' })),
    methods: Type.Array(Type.Enum([...APP_API_METHODS]), {
      minItems: 1,
      maxItems: APP_API_METHODS.length,
      uniqueItems: true,
      description: 'GET, POST, PUT, PATCH and/or DELETE, each once (required)',
    }),
    path: Type.Optional(
      Type.String({
        pattern: PATH_PATTERN,
        description: 'a path template starting with /, up to 500 characters of letters, digits, . _ ~ - : / and {braces}',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'AppApiResourceReplace',
    description: 'The whole declaration: methods required; description or path left out is cleared',
  },
);
export type AppApiResourceReplace = Static<typeof AppApiResourceReplace>;

export const AppApiResourceParams = Type.Object(
  {
    name: Type.String({
      description:
        'the resource name: a lower-case letter, then up to 63 lower-case letters, digits and dashes (PUT: any other is a 400 naming params.name; GET and DELETE: a 404)',
    }),
  },
  { additionalProperties: false },
);

export const AppApiResourceListQuery = Type.Object(
  {
    ...PageQuery,
    appId: Type.Optional(Type.String({ format: 'uuid', description: "a workspace key's or staff's list: one app's resources only" })),
  },
  { additionalProperties: false },
);
export type AppApiResourceListQuery = Static<typeof AppApiResourceListQuery>;

export const AppBuilderSecret = Type.Object(
  {
    object: Type.Literal('appBuilderSecret'),
    appId: Id,
    secret: Type.String({ description: 'shown only now: store it where the builder signs; a later rotation replaces it' }),
    updatedAt: Timestamp,
  },
  { title: 'AppBuilderSecret' },
);
export type AppBuilderSecret = Static<typeof AppBuilderSecret>;
