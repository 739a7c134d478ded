import { type Static, Type } from 'typebox';
import { Id, Line, Name, PageQuery, PathId, RefId } from '../../../lib/schemas.js';

const INSTALL_TYPES = ['core', 'custom', 'marketplace', 'embed', 'link', 'manual'] as const;
/** What an operator can install: core modules come with every workspace. */
const INSTALLABLE_TYPES = ['custom', 'marketplace', 'embed', 'link', 'manual'] as const;

const FreeObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

/** An install as answered: every field of the specification but the internal-only `disabled` and `notificationConfig`. */
export const Install = Type.Object(
  {
    id: Id,
    object: Type.Literal('install'),
    type: Type.Enum([...INSTALL_TYPES]),
    status: Type.Enum(['draft', 'published'], { description: 'draft: an app-builder install not yet published, hidden from clients' }),
    displayName: Type.String({ description: 'label shown in the sidebar' }),
    icon: Type.String({ description: 'design-system icon name' }),
    appId: Type.String({ description: 'the backing application (as in notifications); "" for embed, link and manual installs' }),
    appBuilderId: Type.Optional(Type.String({ description: 'source builder of a draft; present only when set' })),
    isDraft: Type.Boolean(),
    autoSizeEmbed: Type.Boolean(),
    content: Type.Optional(Type.String()),
    embedCode: Type.Optional(Type.String()),
    embedLink: Type.Optional(
      Type.String({
        description:
          'the URL the portal opens: a custom or marketplace app’s page, framed with the person’s session token (`?token=`); a link’s destination',
      }),
    ),
    embedCount: Type.Integer(),
    embedlyData: Type.Optional(FreeObject),
    isAuthenticated: Type.Boolean(),
    isInternalApp: Type.Boolean(),
    isRoot: Type.Boolean(),
    iuSidebarHidden: Type.Boolean(),
    path: Type.String(),
    queryParams: Type.Array(Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' } })),
    sort: Type.Integer({ description: 'sidebar position, ascending' }),
    supportsExpiringTokens: Type.Boolean(),
    visibilityConfig: Type.Array(FreeObject),
  },
  { additionalProperties: false, title: 'Install' },
);
export type Install = Static<typeof Install>;

export const InstallListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type InstallListQuery = Static<typeof InstallListQuery>;

export const InstallAdminParams = Type.Object(
  { workspaceId: PathId('workspace id'), installId: PathId('install id') },
  { additionalProperties: false },
);

export const InstallParams = Type.Object({ installId: PathId('install id') }, { additionalProperties: false });

/** What `portal installs create` and the admin surface take. */
export const InstallCreate = Type.Object(
  {
    type: Type.Enum([...INSTALLABLE_TYPES]),
    name: Name,
    appId: Type.Optional(RefId('required for custom and marketplace installs; absent for the others', { uuid: true })),
    draft: Type.Optional(Type.Boolean({ description: 'custom installs only: an app-builder draft, hidden from clients until published' })),
    url: Type.Optional(
      Line({
        maxLength: 2048,
        description:
          'custom, marketplace and link installs: an http(s) URL, answered as `embedLink`. An app’s page, which the portal frames for ' +
          'a signed-in person with their session token (`?token=`; `http://127.0.0.1:<port>` while developing), or a link’s destination',
      }),
    ),
  },
  { additionalProperties: false, title: 'InstallCreate' },
);
export type InstallCreate = Static<typeof InstallCreate>;

export const CreatedInstall = Type.Object({ id: Id });
export const PublishedInstall = Type.Object({ id: Id, status: Type.Literal('published') });
