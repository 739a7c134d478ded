import { type Static, Type } from 'typebox';
import { MAX_IMAGE_BYTES } from '../../../lib/images.js';
import { Id, PathId } from '../../../lib/schemas.js';

/** The signed-in person's own profile: what the portal's account page shows and changes. */
export const Profile = Type.Object(
  {
    object: Type.Literal('profile'),
    type: Type.Union([Type.Literal('client'), Type.Literal('internalUser')], { description: 'a client or an internal user' }),
    id: Id,
    email: Type.String({ description: 'the e-mail the person signs in with; not changed here' }),
    givenName: Type.String(),
    familyName: Type.String(),
    avatarImageUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description:
          'present only when set: the picture (PUT …/profile/avatar), at PORTAL_URL/portal/{workspaceId}/api/avatars/{id}/{sha256}, the ' +
          'same URL the API answers as the client’s or internal user’s avatarImageUrl',
      }),
    ),
    notificationPreferences: Type.Object(
      {
        email: Type.Boolean({
          description:
            'whether notifications are e-mailed to the person (true until turned off); off, a notification’s `email` target is not ' +
            'sent to it (its in-product notification still is). Sign-in, reset and invite e-mails are always sent.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'Profile' },
);
export type Profile = Static<typeof Profile>;

/** A name as a person types it: checked by the service (blank: a 400 saying so), trimmed, as the directory keeps it. */
const TypedName = Type.String({ maxLength: 200, description: 'up to 200 characters, not blank; trimmed' });

export const ProfileUpdate = Type.Object(
  {
    givenName: Type.Optional(TypedName),
    familyName: Type.Optional(TypedName),
    notificationPreferences: Type.Optional(
      Type.Object({ email: Type.Optional(Type.Boolean()) }, { additionalProperties: false, description: 'the choices given change' }),
    ),
  },
  { additionalProperties: false, title: 'ProfileUpdate' },
);
export type ProfileUpdate = Static<typeof ProfileUpdate>;

/** A profile's fields that are not changed here: each is a 400 saying so, rather than the generic unknown field. */
export const PROFILE_READ_ONLY = ['object', 'type', 'id', 'email', 'avatarImageUrl'] as const;

export const AvatarParams = Type.Object(
  {
    workspaceId: PathId('workspace id'),
    personId: PathId('the client’s or internal user’s id'),
    hash: Type.String({ description: 'the SHA-256 of the picture, hex, as its URL names it (another: 404)' }),
  },
  { additionalProperties: false },
);

/** An uploaded picture's bytes (the body of PUT …/profile/avatar, handed over raw: no type, which a Buffer would fail). */
export const ImageBytesIn = Type.Unsafe<Buffer>({ description: `a PNG, JPEG, WebP or GIF image, at most ${MAX_IMAGE_BYTES} bytes` });

/** A served picture's bytes. */
export const ImageBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
