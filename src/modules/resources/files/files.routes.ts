import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../../lib/errors.js';
import type { RoutePolicy } from '../../../lib/policy.js';
import { DELETE_ERRORS, IdParams, Page, READ_ERRORS, WRITE_ERRORS, errorResponses } from '../../../lib/schemas.js';
import {
  DownloadUrl,
  FILE_TYPES,
  FileBatch,
  FileBatchDeleted,
  FileCreate,
  FileCreateDeprecated,
  FileDeleted,
  FileListQuery,
  FileObject,
  FileTypeParams,
  FileUpdate,
  FolderDeprecated,
  MAX_BATCH_IDS,
  Permissions,
  PermissionsUpdate,
  SignedQuery,
} from './files.schemas.js';
import { FileChannel, FileChannelCreate, FileChannelListQuery } from '../../components/channels/index.js';
import * as service from './files.service.js';
import * as fileContent from './file-content.service.js';
import * as batch from './file-batch.service.js';
import { zipStream } from './archive.js';

/** A client session reads the channels it belongs to and their files; changing them is staff's (403 for it). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
/** A client session creates files, folders and links where clients may write (its folder's or root's permissions). */
const CLIENT_CREATES: RoutePolicy = { clientSession: 'write' };
const tags = ['files'];

const SEES =
  'A client session sees the channels it belongs to (its individual channels, the groups that list it, its companies’ channels); ' +
  'an internal user limited to some companies sees those companies’ channels only.';

/** The bytes of a file, as a stream (documented only: no schema checks a stream). */
const Bytes = Type.Unsafe<Readable>({ type: 'string', format: 'binary' });
/** An upload's body: the raw stream this plugin's parser hands over (no `type`: nothing a schema could check). */
const BytesIn = Type.Unsafe<Readable | undefined>({ description: 'the file’s content, any media type' });
/** Types a browser could run or render as this service's own page: served as plain bytes instead. */
const ACTIVE = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript)$/;

/** Sends a file's content as an attachment: never sniffed, never run, sandboxed if opened anyway, never kept by a shared cache. */
function sendContent(reply: FastifyReply, content: fileContent.Content) {
  const type = ACTIVE.test(content.contentType) ? 'application/octet-stream' : content.contentType;
  const ascii = content.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return reply
    .type(type)
    .header('content-length', content.size)
    .header('cache-control', 'private, no-store')
    .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(content.name)}`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .send(content.body);
}

export default async function fileRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, files } = app.ctx;

  app.post(
    '/channels/files',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'createFileChannel',
        summary: 'Create a file channel',
        description:
          'individual: `clientId` (or the deprecated `membershipEntityId`); group: `memberIds`, clients of one company; company: ' +
          '`companyId` (or `membershipEntityId`). `companyId` chooses the company when a client has several. Every failing field is ' +
          'named in one 400. The specification has no event for it: none is recorded.',
        body: FileChannelCreate,
        response: { 200: FileChannel, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createChannel(database, request.caller, request.body),
  );

  app.get(
    '/channels/files',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listFileChannels',
        summary: 'List file channels, newest first',
        description: `${SEES} Empty filters (the SDK sends \`clientId=\` and \`companyId=\` by default) filter nothing.`,
        querystring: FileChannelListQuery,
        response: { 200: Page(FileChannel), ...READ_ERRORS },
      },
    },
    async (request) => service.listChannels(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/channels/files/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveFileChannel',
        summary: 'Retrieve a file channel',
        description: SEES,
        params: IdParams,
        response: { 200: FileChannel, ...READ_ERRORS },
      },
    },
    async (request) => service.getChannel(database, request.caller, request.params.id),
  );

  app.post(
    '/files/:fileType',
    {
      config: { policy: CLIENT_CREATES },
      schema: {
        tags,
        operationId: 'createFile',
        summary: 'Create a file, folder or link in a channel',
        description:
          'A `file` is created without content (`status` pending) and answered with an `uploadUrl` (this service’s PORTAL_URL): PUT ' +
          'the bytes there, once (any Content-Type, at most FILES_MAX_BYTES) before it expires (FILES_URL_TTL_SECONDS); then the file ' +
          'is `completed` and has a `downloadUrl`. New content is a new file. A `folder` may set `clientPermissions` (default ' +
          'read_write); a `link` needs an http(s) `linkUrl`. Names are stored in Unicode NFC; bidirectional-control characters are a ' +
          '400. The path’s folders must exist; a path taken is a 409. A client session creates only where clients may write (403 ' +
          'otherwise). ' +
          'Records fileCreated, folderCreated or linkCreated.',
        params: FileTypeParams,
        body: FileCreate,
        response: { 200: FileObject, ...WRITE_ERRORS },
      },
    },
    async (request) => {
      const type = FILE_TYPES.find((known) => known === request.params.fileType);
      if (type === undefined) throw errors.notFound('File type');
      return service.createFile(database, request.caller, files, type, request.body);
    },
  );

  app.post(
    '/file',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        deprecated: true,
        operationId: 'createAFileDeprecated',
        summary: 'Create a folder, the deprecated way',
        description:
          '`type` folder only; `channelID` and `path` (its folders must exist) required; `fileKey` and `fileUrl` ignored. ' +
          'Records folderCreated. Use POST /v1/files/{fileType}.',
        body: FileCreateDeprecated,
        response: { 200: FolderDeprecated, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createFileDeprecated(database, request.caller, request.body),
  );

  app.get(
    '/files',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listFiles',
        summary: 'List the files, folders and links of a channel, newest first',
        description:
          'A channel the caller does not see is a 404; signed URLs are in single answers only. A client session does not see the ' +
          `files still pending (without content) that someone else created. ${SEES}`,
        querystring: FileListQuery,
        response: { 200: Page(FileObject), ...READ_ERRORS },
      },
    },
    async (request) => service.listFiles(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/files/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveFile',
        summary: 'Retrieve a file, folder or link',
        description:
          'A file with content has a fresh `downloadUrl`; one without, an `uploadUrl` when the caller may write where it is (staff; ' +
          'a client only where clients may write), none otherwise. A client session does not see the files still pending that ' +
          `someone else created (404). ${SEES}`,
        params: IdParams,
        response: { 200: FileObject, ...READ_ERRORS },
      },
    },
    async (request) => service.getFile(database, request.caller, files, request.params.id),
  );

  app.delete(
    '/files/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'deleteFile',
        summary: 'Delete a file, folder or link',
        description:
          'A folder only when nothing is inside it, seen by the caller or not (400 "Folder is not empty" otherwise): a delete never ' +
          'reaches more than the one object. A file’s content leaves the store. ' +
          'Records fileDeleted, folderDeleted or linkDeleted.',
        params: IdParams,
        response: { 200: FileDeleted, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteFile(database, request.caller, files, request.params.id),
  );

  app.patch(
    '/files/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'updateFile',
        summary: 'Rename or move a file, folder or link; change a link’s URL',
        description:
          '`path`: the new full path in the same channel (rename: a new last segment; move: other folders before it; the create ' +
          'body’s rules, a 400 naming body.path). The new path’s folders must exist (400); a path taken is a 409 `conflict`. A ' +
          'folder’s contents follow at any depth, in the same transaction (their `updatedAt` stays); a folder cannot go inside ' +
          'itself or a folder inside it (400 naming body.path). An empty body, or the path the object has, changes nothing (no event). `linkUrl`: links only, an http(s) URL. A file keeps its id, content ' +
          'and URLs. Staff only (a client session: 403). Records fileUpdated, folderUpdated or linkUpdated.',
        params: IdParams,
        body: FileUpdate,
        response: { 200: FileObject, ...WRITE_ERRORS },
      },
    },
    async (request) => service.updateFile(database, request.caller, files, request.params.id, request.body),
  );

  app.post(
    '/files/batch-delete',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'deleteFiles',
        summary: 'Delete several files, folders and links of one channel at once',
        description:
          `\`ids\`: 1–${MAX_BATCH_IDS} distinct ids, all of one channel (else a 400 naming the item, body.ids.N). All or nothing: ` +
          'an item the caller cannot see (unknown, another workspace’s, a channel out of its reach) refuses the whole batch with a ' +
          '404 naming each such item (body.ids.N), and nothing is deleted. As a single delete, a folder goes only with everything ' +
          'inside it (in `ids` too), else a 400 "Folder is not empty" naming it. Staff only (a client session: 403). Records one ' +
          'fileBatchDeleted.',
        body: FileBatch,
        response: { 200: FileBatchDeleted, ...DELETE_ERRORS, ...errorResponses(413, 415) },
      },
    },
    async (request) => batch.deleteFiles(database, request.caller, files, request.body.ids),
  );

  app.get(
    '/files/archive',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'downloadFilesArchive',
        summary: 'Download several files, or folders, as one zip archive',
        description:
          `\`ids\`: 1–${MAX_BATCH_IDS} distinct ids of files and folders of one channel, separated by commas. The archive holds each ` +
          'file named and each folder named with everything inside it at any depth, at their paths in the channel (folders as ' +
          'entries, so empty ones are kept); inside a folder, links and files without content yet (pending) are left out, and a ' +
          'link or pending file named is a 400 naming it (query.ids.N). An item the caller cannot see refuses the whole ' +
          'request with a 404 naming each such item (query.ids.N). At most 10,000 entries (400). The archive is streamed as ' +
          'it is made (no Content-Length; a content missing from the store cuts the reply short), an attachment with ' +
          '`Cache-Control: private, no-store`. A client session downloads from its channels. Records fileBatchDownloaded.',
        querystring: Type.Object(
          {
            ids: Type.String({
              maxLength: MAX_BATCH_IDS * 65,
              description: `ids of files and folders, separated by commas (1–${MAX_BATCH_IDS}, each once)`,
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: { description: 'the zip archive', content: { 'application/zip': { schema: Bytes } } }, ...READ_ERRORS },
      },
    },
    async (request, reply) => {
      const entries = await batch.archive(database, request.caller, request.query.ids);
      return reply
        .type('application/zip')
        .header('cache-control', 'private, no-store')
        .header('content-disposition', 'attachment; filename="files.zip"')
        .header('x-content-type-options', 'nosniff')
        .send(await zipStream(files.store, entries));
    },
  );

  app.get(
    '/files/:id/download',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'downloadAFile',
        summary: 'Download a file’s content (deprecated)',
        description:
          'The bytes, as an attachment (types a browser would run served as application/octet-stream), `Cache-Control: private, ' +
          'no-store`; a folder, a link or a file without content is a 400. Records fileDownloaded.',
        params: IdParams,
        response: { 200: { description: 'the content', content: { 'application/octet-stream': { schema: Bytes } } }, ...READ_ERRORS },
      },
    },
    async (request, reply) => sendContent(reply, await fileContent.download(database, request.caller, files, request.params.id)),
  );

  app.get(
    '/files/:id/download-url',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveDownloadUrlOfAFile',
        summary: 'A signed URL to download a file’s content (deprecated)',
        description:
          'Served by this service (GET /files/downloads/{id}?…), working until it expires (FILES_URL_TTL_SECONDS) for whoever holds it. ' +
          'Records fileDownloaded.',
        params: IdParams,
        response: { 200: DownloadUrl, ...READ_ERRORS },
      },
    },
    async (request) => fileContent.downloadUrl(database, request.caller, files, request.params.id),
  );

  app.put(
    '/files/:id/permissions/',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'putV1FilesIdPermissions',
        summary: 'Set what clients may do in a folder, or at a channel’s root',
        description:
          '`id`: a folder’s id, or `root` with `channelId`. read_only: clients read, and create nothing there. Records folderUpdated.',
        params: Type.Object({ id: Type.String({ description: 'a folder’s id, or `root`' }) }, { additionalProperties: false }),
        body: PermissionsUpdate,
        response: { 200: Permissions, ...WRITE_ERRORS },
      },
    },
    async (request) => service.setPermissions(database, request.caller, request.params.id, request.body),
  );
}

/** A media type as a Content-Type header gives it (RFC 9110 token characters), parameters dropped, lower case. */
const MEDIA_TYPE = /^([!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+)\s*(;.*)?$/i;

/**
 * The signed URLs, outside /v1: whoever holds one may PUT a file's content (upload) or GET it (download)
 * until it expires; the signature stands for the credential.
 */
export async function fileContentRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, files, clock } = app.ctx;

  // This plugin's bodies only: any content type is a file's bytes, handed over as the raw stream, which
  // the store writes as it arrives (its size checked then, beyond a Content-Length announced too large).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    if (Number(request.headers['content-length'] ?? 0) > files.maxBytes) return done(errors.payloadTooLarge(files.maxBytes), undefined);
    done(null, payload);
  });

  const signedErrors = errorResponses(400, 403, 404, 500, 503);

  app.put(
    '/files/uploads/:id',
    {
      schema: {
        tags,
        operationId: 'uploadFileContent',
        summary: 'Upload a file’s content to its signed uploadUrl',
        description:
          `The body is the content (at most FILES_MAX_BYTES, else 413), of the request’s Content-Type (a media type, else 415; none: ` +
          'application/octet-stream). It is stored whole or not at all: an upload cut short leaves nothing, and the URL may be used ' +
          'again. A file’s content is uploaded once: a second PUT, while the first runs or after it, is a 409 (new content is a new ' +
          'file). A forged, altered or expired URL is a 403, and so is a client session’s URL once clients may only read where the ' +
          'file is (checked at the upload: its folder or the channel’s root made read-only since); `expires` and `signature` are taken only as this service writes them ' +
          '(no leading zero, sign, space or padding; each once), else a 400.',
        params: IdParams,
        querystring: SignedQuery,
        consumes: ['*/*'],
        body: { content: { 'application/octet-stream': { schema: BytesIn } } },
        response: { 200: FileObject, ...signedErrors, ...errorResponses(409, 413, 415) },
      },
    },
    async (request) => {
      const header = request.headers['content-type'];
      const matched = header === undefined ? ['', 'application/octet-stream'] : MEDIA_TYPE.exec(header);
      if (!matched) throw errors.unsupportedMediaType('The Content-Type must be a media type (type/subtype).');
      const body = request.body as unknown;
      const stream = body instanceof Readable ? body : Readable.from([]);
      return fileContent.signedUpload(
        database,
        files,
        request.params.id,
        request.query,
        { stream, contentType: matched[1].toLowerCase() },
        clock.now(),
      );
    },
  );

  app.get(
    '/files/downloads/:id',
    {
      schema: {
        tags,
        operationId: 'downloadFileContent',
        summary: 'Download a file’s content from its signed downloadUrl',
        description:
          'As GET /v1/files/{id}/download (`Cache-Control: private, no-store`), for whoever holds the URL until it expires. A forged, ' +
          'altered or expired URL is a 403.',
        params: IdParams,
        querystring: SignedQuery,
        response: { 200: { description: 'the content', content: { 'application/octet-stream': { schema: Bytes } } }, ...signedErrors },
      },
    },
    async (request, reply) =>
      sendContent(reply, await fileContent.signedDownload(database, files, request.params.id, request.query, clock.now())),
  );
}
