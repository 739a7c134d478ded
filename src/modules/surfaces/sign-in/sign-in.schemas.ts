import { type Static, Type } from 'typebox';
import { Id, PathId, Timestamp } from '../../../lib/schemas.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';

const Email = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  description: 'the e-mail the person was added with',
});
const UserType = Type.Union([Type.Literal('client'), Type.Literal('internalUser')], {
  description: 'who signs in: a client (the default) or an internal user of the workspace',
});
const Password = Type.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters, any`,
});
/** The secret of an e-mailed link (its URL's fragment). */
const LinkToken = Type.String({
  minLength: 20,
  maxLength: 200,
  pattern: '^[A-Za-z0-9_-]{20,200}$',
  description: 'the part of the link after `#`',
});
const Code = Type.String({ minLength: 6, maxLength: 20, description: 'the 6 digits of the authenticator, or an unused recovery code' });

export const PasswordSignIn = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }), userType: Type.Optional(UserType) },
  { additionalProperties: false, title: 'PasswordSignIn' },
);
export const LinkRequest = Type.Object(
  { email: Email, userType: Type.Optional(UserType) },
  { additionalProperties: false, title: 'SignInLinkRequest' },
);
export const LinkRedemption = Type.Object({ token: LinkToken }, { additionalProperties: false, title: 'SignInLinkRedemption' });
export const PasswordResetCompletion = Type.Object(
  { token: LinkToken, password: Password },
  { additionalProperties: false, title: 'PasswordResetCompletion' },
);
export const InviteAcceptance = Type.Object(
  { token: LinkToken, password: Type.Optional(Password) },
  { additionalProperties: false, title: 'InviteAcceptance' },
);
export const PasswordChange = Type.Object(
  {
    currentPassword: Type.Optional(Type.String({ minLength: 1, maxLength: PASSWORD_MAX, description: 'required when a password is set' })),
    newPassword: Password,
  },
  { additionalProperties: false, title: 'PasswordChange' },
);
export const CodeBody = Type.Object({ code: Code }, { additionalProperties: false, title: 'SecondFactorCode' });

export const SignInSession = Type.Object(
  {
    object: Type.Literal('signInSession'),
    id: Id,
    stage: Type.Union([Type.Literal('active'), Type.Literal('mfaRequired'), Type.Literal('mfaEnrolmentRequired')], {
      description:
        '`active`: signed in. `mfaRequired`: send a TOTP or recovery code to POST …/sign-in/totp. `mfaEnrolmentRequired`: the workspace ' +
        'requires TOTP of its internal users; enrol one (POST …/mfa/totp, then …/mfa/totp/confirm). Until `active`, the session opens nothing else.',
    }),
    method: Type.Union(
      [Type.Literal('password'), Type.Literal('magicLink'), Type.Literal('invite'), Type.Literal('passwordReset'), Type.Literal('oidc')],
      { description: 'how the first factor was passed' },
    ),
    user: Type.Object({
      type: UserType,
      id: Id,
      email: Type.String(),
      givenName: Type.String(),
      familyName: Type.String(),
      role: Type.Optional(Type.String({ description: 'an internal user’s role' })),
      companyId: Type.Optional(Id),
    }),
    mfaEnabled: Type.Boolean({ description: 'whether a TOTP authenticator is enrolled' }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
  },
  { title: 'SignInSession' },
);
export type SignInSession = Static<typeof SignInSession>;

export const PortalWorkspace = Type.Object(
  {
    object: Type.Literal('portalWorkspace'),
    id: Id,
    name: Type.String({ description: 'the business whose portal this is' }),
    brandColor: Type.String({
      description: 'its colour (#rrggbb): the one the operator set, else one derived from its id, as on its PDFs',
    }),
    logoUrl: Type.Optional(
      Type.String({
        description:
          'its logo, where this service serves it (a path of this origin, /portal/{workspaceId}/api/workspace/logo/{hash}): shown beside its name; absent: none set',
      }),
    ),
    logoWidth: Type.Optional(Type.Integer({ description: 'the logo’s width in pixels (with its height: the box a page keeps for it)' })),
    logoHeight: Type.Optional(Type.Integer({ description: 'the logo’s height in pixels' })),
  },
  { title: 'PortalWorkspace' },
);

export const LogoParams = Type.Object(
  {
    workspaceId: PathId('workspace id'),
    hash: Type.String({ maxLength: 64, description: 'the SHA-256 of the logo’s bytes, hex, as `logoUrl` names it' }),
  },
  { additionalProperties: false },
);

export const TotpEnrolment = Type.Object(
  {
    secret: Type.String({ description: 'base32: type it into an authenticator app, or use the URI' }),
    otpauthUri: Type.String({ description: 'otpauth://totp/… (show it as a QR code)' }),
  },
  { title: 'TotpEnrolment' },
);
export const TotpConfirmation = Type.Object(
  {
    recoveryCodes: Type.Array(Type.String(), { description: 'ten single-use codes, shown this once (only their hashes are kept)' }),
    session: SignInSession,
  },
  { title: 'TotpConfirmation' },
);

export const ProviderParams = Type.Object(
  {
    workspaceId: PathId('workspace id'),
    provider: Type.String({ pattern: '^[a-z][a-z0-9-]{0,30}$', description: 'the provider’s id (OIDC_PROVIDERS)' }),
  },
  { additionalProperties: false },
);
export const OidcStartQuery = Type.Object(
  {
    userType: Type.Optional(UserType),
    link: Type.Optional(Type.Boolean({ description: 'link the identity to the signed-in person instead of signing in' })),
  },
  { additionalProperties: false },
);
export const Providers = Type.Object(
  { data: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) },
  { title: 'SignInProviders' },
);
export const Identities = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        provider: Type.String(),
        email: Type.Optional(Type.String({ description: 'as the provider gave it when linked' })),
        createdAt: Timestamp,
      }),
    ),
  },
  { title: 'LinkedIdentities' },
);

export const InstallParams = Type.Object(
  { workspaceId: PathId('workspace id'), installId: PathId('install id') },
  { additionalProperties: false },
);
export const AppSession = Type.Object(
  {
    token: Type.String({ description: 'the session token to hand the app (its SDK decrypts it with the app key)' }),
    tokenId: Id,
    expiresAt: Type.Integer({ description: 'Unix seconds' }),
  },
  { title: 'PortalAppSession' },
);
export const PortalAppKey = Type.Object(
  { apiKey: Type.String({ minLength: 1, maxLength: 200, description: 'an active app key of the workspace, for the install’s app' }) },
  { additionalProperties: false, title: 'PortalAppKey' },
);
export const RegisteredAppKey = Type.Object({ installId: Id, apiKeyId: Id }, { title: 'RegisteredPortalAppKey' });
