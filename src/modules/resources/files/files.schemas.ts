import { type Static, Type } from 'typebox';
import { Id, Line, PageQuery, RefId, Text, Timestamp } from '../../../lib/schemas.js';

/** A path: at most this many characters, in at most MAX_PATH_DEPTH segments of at most MAX_NAME_LENGTH. */
const MAX_PATH_LENGTH = 1024;
export const MAX_PATH_DEPTH = 32;
export const MAX_NAME_LENGTH = 255;
export const FILE_TYPES = ['file', 'folder', 'link'] as const;
/** What clients may do in a folder (or a channel's root), as the SDK's create and permissions bodies spell it. */
const PERMISSIONS_IN = ['read_write', 'read_only'] as const;
export type ClientPermissionsIn = (typeof PERMISSIONS_IN)[number];

// File channels' schemas are the channels component's (modules/components/channels), shared with message channels.

const LastModifiedBy = Type.Object(
  {
    id: Type.String(),
    object: Type.Enum(['client', 'internalUser']),
  },
  { additionalProperties: false, description: 'who last changed it; absent when an API key did' },
);

export const FileObject = Type.Object(
  {
    id: Id,
    object: Type.Enum([...FILE_TYPES]),
    channelId: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    creatorId: Type.Optional(Type.String({ description: 'the client or internal user who created it; absent when an API key did' })),
    lastModifiedBy: Type.Optional(LastModifiedBy),
    name: Type.String({ description: 'the last segment of its path' }),
    path: Type.String({ description: 'its full path in the channel, segments joined by `/`' }),
    linkUrl: Type.Optional(Type.String({ description: 'links: where they point' })),
    size: Type.Optional(Type.Integer({ minimum: 0, description: 'files: the content’s size in bytes, once uploaded' })),
    status: Type.Optional(
      Type.Enum(['pending', 'completed'], {
        description: 'files: `pending` until the content is uploaded (PUT to `uploadUrl`), then `completed`',
      }),
    ),
    contentType: Type.Optional(Type.String({ description: 'files: the Content-Type the upload declared' })),
    downloadUrl: Type.Optional(
      Type.String({
        description:
          'files with content (single objects, not lists): a signed URL to GET it, served by this service, working until it expires (FILES_URL_TTL_SECONDS)',
      }),
    ),
    uploadUrl: Type.Optional(
      Type.String({
        description:
          'files created without content (create and retrieve answers): a signed URL to PUT the content to (any Content-Type, at most FILES_MAX_BYTES), until it expires',
      }),
    ),
    clientPermissions: Type.Optional(Type.Enum(['read-write', 'read-only'], { description: 'folders: what clients may do in them' })),
  },
  { additionalProperties: false, title: 'FileObject' },
);
export type FileObject = Static<typeof FileObject>;

export const FileTypeParams = Type.Object(
  { fileType: Type.String({ description: 'file, folder or link (three operations: another is a 404, as an unknown route)' }) },
  { additionalProperties: false },
);

export const FileCreate = Type.Object(
  {
    path: Line({
      minLength: 1,
      maxLength: MAX_PATH_LENGTH,
      description:
        'the full path in the channel, name last, segments joined by `/` (each 1–255 characters, not `.` or `..`, no `\\`, control ' +
        'or bidirectional-control characters; compared and stored in Unicode NFC); the folders before the name must exist',
    }),
    channelId: RefId('the file channel, one the caller sees'),
    linkUrl: Type.Optional(Text({ maxLength: 2048, description: 'links: an http(s) URL (required for a link, refused otherwise)' })),
    clientPermissions: Type.Optional(
      Type.Enum([...PERMISSIONS_IN], { description: 'folders only: what clients may do in it (default read_write)' }),
    ),
  },
  { additionalProperties: false, title: 'FileCreate' },
);
export type FileCreate = Static<typeof FileCreate>;

export const FileCreateDeprecated = Type.Object(
  {
    type: Type.Enum(['folder'], { description: 'only `folder`' }),
    channelID: RefId('the file channel'),
    fileKey: Type.Optional(Type.String({ description: 'ignored: this service chooses where content is stored' })),
    path: Type.Optional(
      Line({
        maxLength: MAX_PATH_LENGTH,
        description: 'the new folder’s path, its name last (required); its parent folders must exist',
      }),
    ),
    fileUrl: Type.Optional(Type.String({ description: 'ignored (links are created with POST /v1/files/link)' })),
  },
  { additionalProperties: false, title: 'FileCreateDeprecated' },
);
export type FileCreateDeprecated = Static<typeof FileCreateDeprecated>;

export const FolderDeprecated = Type.Object(
  {
    id: Id,
    object: Type.Literal('folder'),
    createdBy: Type.Optional(Type.String({ description: 'the client or internal user who created it; absent when an API key did' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    channelId: Type.String(),
    fields: Type.Object({ path: Type.String(), starred: Type.Boolean({ description: 'always false' }) }, { additionalProperties: false }),
  },
  { additionalProperties: false, title: 'FolderDeprecated' },
);
export type FolderDeprecated = Static<typeof FolderDeprecated>;

export const FileListQuery = Type.Object(
  {
    ...PageQuery,
    channelId: RefId('the channel whose files to list (404 when the caller does not see it)'),
    path: Type.Optional(
      Type.String({
        maxLength: MAX_PATH_LENGTH,
        description: 'only what is inside this folder path, at any depth (`a/b` lists `a/b/c` and `a/b/c/d`, not `a/bc`)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FileListQuery = Static<typeof FileListQuery>;

export const PermissionsUpdate = Type.Object(
  {
    clientPermissions: Type.Enum([...PERMISSIONS_IN], { description: 'read_write or read_only' }),
    channelId: Type.Optional(RefId('the channel: required when the id is `root`')),
  },
  { additionalProperties: false, title: 'PermissionsUpdate' },
);
export type PermissionsUpdate = Static<typeof PermissionsUpdate>;

export const Permissions = Type.Object(
  {
    id: Type.String({ description: 'the folder’s id, or `root`' }),
    channelId: Type.String(),
    clientPermissions: Type.Enum(['read-write', 'read-only']),
  },
  { additionalProperties: false, title: 'FolderPermissions' },
);
export type Permissions = Static<typeof Permissions>;

export const DownloadUrl = Type.Object(
  { downloadUrl: Type.String({ description: 'a signed URL to GET the content, served by this service, until it expires' }) },
  { additionalProperties: false, title: 'DownloadUrl' },
);

export const FileDeleted = Type.Object(
  { id: Type.String(), object: Type.Enum([...FILE_TYPES]), deleted: Type.Literal(true) },
  { additionalProperties: false, title: 'FileDeleted' },
);

/**
 * The signed URLs' query: the workspace, the expiry (Unix seconds) and the signature, each in the one form
 * this service writes (the expiry a decimal integer without leading zero or sign, the signature 43 base64url
 * characters), each once.
 */
export const SignedQuery = Type.Object(
  {
    workspaceId: Type.String(),
    expires: Type.String({ pattern: '^[1-9][0-9]{0,11}$' }),
    signature: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
  },
  { additionalProperties: false },
);

export const FileUpdate = Type.Object(
  {
    path: Type.Optional(
      Line({
        minLength: 1,
        maxLength: MAX_PATH_LENGTH,
        description:
          'the new full path in the same channel, name last: a rename (a new last segment), a move (other folders before it), or ' +
          'both. Its folders must exist; a path taken is a 409; a folder cannot go inside itself (400). A folder’s contents follow, ' +
          'at any depth, in the same change. The rules of a path are the create body’s.',
      }),
    ),
    linkUrl: Type.Optional(Text({ maxLength: 2048, description: 'links only: a new http(s) URL' })),
  },
  { additionalProperties: false, title: 'FileUpdate', description: 'what to change; an empty body changes nothing' },
);
export type FileUpdate = Static<typeof FileUpdate>;

/** At most this many ids in one batch (download or delete). */
export const MAX_BATCH_IDS = 100;

export const FileBatch = Type.Object(
  {
    ids: Type.Array(Type.String({ maxLength: 64 }), {
      minItems: 1,
      maxItems: MAX_BATCH_IDS,
      uniqueItems: true,
      description: `1–${MAX_BATCH_IDS} distinct ids of files, folders or links, all of one channel`,
    }),
  },
  { additionalProperties: false, title: 'FileBatch' },
);
export type FileBatch = Static<typeof FileBatch>;

export const FileBatchDeleted = Type.Object(
  {
    data: Type.Array(
      Type.Object({ id: Type.String(), object: Type.Enum([...FILE_TYPES]), deleted: Type.Literal(true) }, { additionalProperties: false }),
      { description: 'every object deleted, in the order of `ids`, then what was inside the folders named' },
    ),
  },
  { additionalProperties: false, title: 'FileBatchDeleted' },
);
export type FileBatchDeleted = Static<typeof FileBatchDeleted>;
