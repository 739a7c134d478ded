import { type Static, Type } from 'typebox';
import { Id } from '../../../lib/schemas.js';

export const Me = Type.Object(
  {
    object: Type.Literal('me'),
    workspaceId: Id,
    // An enum, not a union of literals: the response serializer would validate each value to pick a branch.
    type: Type.Enum(['workspace', 'app', 'internalUser', 'client'], {
      description: 'workspace key, app key (a bearer token is `app`), or the end user of a session',
    }),
    id: Type.String({
      description:
        'the acting identity: the key id for a workspace key, the app id for an app (or its bearer token), the user id for a session',
    }),
    apiKeyId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'the API key behind the request (a bearer token’s or session’s key included); absent for a person signed in to the portal',
      }),
    ),
    appId: Type.Optional(Type.String({ description: 'the app of an app key, bearer token or session' })),
    companyId: Type.Optional(Type.String({ description: 'client session: the company the session is for' })),
    tokenId: Type.Optional(Type.String({ description: 'session: its tokenId' })),
  },
  { title: 'Me' },
);
export type Me = Static<typeof Me>;
