import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../lib/errors.js';
import { MAX_IMAGE_BYTES } from '../../../lib/images.js';
import { rejectReadOnly } from '../../../lib/read-only.js';
import { WorkspaceParams, errorResponses } from '../../../lib/schemas.js';
import { AvatarParams, ImageBytes, ImageBytesIn, PROFILE_READ_ONLY, Profile, ProfileUpdate } from './profile.schemas.js';
import * as profile from './profile.service.js';
import { signInHttp } from './sign-in.http.js';

const tags = ['sign-in'];
const SIGNED_IN = { security: [{ portalSession: [] }] };
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** A picture's 413 and 415, described as they are here (not the JSON bodies' 1 MiB). */
const PICTURE_ERRORS = {
  413: { ...errorResponses(413)[413], description: `Body over ${MAX_IMAGE_BYTES} bytes` },
  415: { ...errorResponses(415)[415], description: 'Not a PNG, JPEG, WebP or GIF image (SVG is never taken)' },
};

/**
 * The signed-in person's own profile, under /portal/{workspaceId}/api (the sign-in API's scope: its cross-site rule and
 * session lookup apply): its names, notification choices and picture; and the pictures themselves, served to anyone
 * with their URL (apps show them: the URL is what GET /v1/clients/{id} answers as avatarImageUrl).
 */
export async function profileRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, config } = app.ctx;
  const { attemptOf } = signInHttp(app);

  const route = (operationId: string, summary: string, description: string) => ({
    tags,
    security: [],
    operationId,
    summary,
    description,
    params: WorkspaceParams,
  });

  app.get(
    '/profile',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route(
          'retrieveProfile',
          'The signed-in person’s own profile',
          'Its names, e-mail, picture (`avatarImageUrl`, present only when set) and whether notifications are e-mailed to it.',
        ),
        ...SIGNED_IN,
        response: { 200: Profile, ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request) => profile.getProfile(database, request.signInSession, attemptOf(request)),
  );

  app.patch(
    '/profile',
    {
      config: { signedIn: 'active' },
      preValidation: rejectReadOnly(PROFILE_READ_ONLY, 'is not changed here'),
      schema: {
        ...route(
          'updateProfile',
          'Change the signed-in person’s own names and notification choices',
          'The fields given change, the others are kept; answers the whole profile. A session changes only its own person (a client ' +
            'or an internal user), whose e-mail is not changed here. A client’s name change records clientUpdated (its webhook ' +
            '`client.updated`), as PATCH /v1/clients/{id} does; an internal user’s records nothing (the specification has no event ' +
            'for it). `notificationPreferences.email: false`: notifications’ e-mails are no longer sent to the person (its ' +
            'in-product notifications are); sign-in, password-reset and invite e-mails always are.',
        ),
        ...SIGNED_IN,
        body: ProfileUpdate,
        response: { 200: Profile, ...errorResponses(400, 401, 403, 404, 413, 415, 500) },
      },
    },
    async (request) => profile.updateProfile(database, request.signInSession, request.body, attemptOf(request)),
  );

  // The picture's upload: a scope of its own, whose bodies alone are images.
  await app.register(async (scope) => {
    const uploads = scope.withTypeProvider<TypeBoxTypeProvider>();
    // This scope's bodies: an image's bytes, whole, at most MAX_IMAGE_BYTES (a Content-Length announcing more is refused
    // before anything is read), their type read from them by the service; any other body is left unread (the 415 below).
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    uploads.addContentTypeParser(/^image\//i, async (request: { headers: Record<string, unknown> }, payload: AsyncIterable<Buffer>) => {
      if (Number(request.headers['content-length'] ?? 0) > MAX_IMAGE_BYTES) throw errors.payloadTooLarge(MAX_IMAGE_BYTES);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of payload) {
        size += chunk.length;
        if (size > MAX_IMAGE_BYTES) throw errors.payloadTooLarge(MAX_IMAGE_BYTES);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    });

    uploads.put(
      '/profile/avatar',
      {
        config: { signedIn: 'active' },
        schema: {
          ...route(
            'setProfileAvatar',
            'Set the signed-in person’s picture',
            `The body is the image itself (Content-Type image/…, at most ${MAX_IMAGE_BYTES} bytes, else 413): a PNG, JPEG, WebP or GIF, ` +
              'its type read from its bytes (never SVG: 415; bytes that are none of those under one of their types: 400 naming `body`). ' +
              'It replaces the picture before, whose URL is then a 404. `avatarImageUrl` becomes ' +
              'PORTAL_URL/portal/{workspaceId}/api/avatars/{personId}/{sha256 of the bytes}, for the client or internal user too ' +
              '(GET /v1/clients/{id}); a client’s records clientUpdated. Answers the whole profile.',
          ),
          ...SIGNED_IN,
          consumes: IMAGE_TYPES,
          // For the document: the raw bytes (this plugin's parser), which the service checks.
          body: { content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: ImageBytesIn }])) },
          response: { 200: Profile, ...errorResponses(400, 401, 403, 404, 500), ...PICTURE_ERRORS },
        },
      },
      async (request) => {
        const body = request.body as unknown;
        const declaredType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (!Buffer.isBuffer(body)) {
          if (declaredType.startsWith('image/')) throw errors.invalidField('body', 'is empty: send the picture’s bytes');
          throw errors.unsupportedMediaType(
            `A picture is sent as its bytes, with its Content-Type (image/png, image/jpeg, image/webp or image/gif; got ${declaredType || 'none'}).`,
          );
        }
        return profile.setAvatar(database, config.portalUrl, request.signInSession, { bytes: body, declaredType }, attemptOf(request));
      },
    );
  });

  app.delete(
    '/profile/avatar',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route(
          'removeProfileAvatar',
          'Remove the signed-in person’s picture',
          'Its URL is then a 404 and `avatarImageUrl` absent (a client’s records clientUpdated); none to remove is no error. ' +
            'Answers the whole profile.',
        ),
        ...SIGNED_IN,
        response: { 200: Profile, ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request) => profile.removeAvatar(database, request.signInSession, attemptOf(request)),
  );

  app.get(
    '/avatars/:personId/:hash',
    {
      schema: {
        ...route(
          'retrieveAvatar',
          'A person’s picture',
          'What a client’s or internal user’s `avatarImageUrl` points at: no session needed (apps show it), the URL being the ' +
            'capability. Served with the type read from its bytes, `X-Content-Type-Options: nosniff`, `Content-Security-Policy: ' +
            "default-src 'none'` and `Cache-Control: public, max-age=31536000, immutable` (a new picture has a new URL); a replaced or " +
            'removed picture’s URL, or another workspace’s, is a 404.',
        ),
        params: AvatarParams,
        response: {
          200: {
            description: 'the picture',
            content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: ImageBytes }])),
          },
          ...errorResponses(400, 404, 500),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId, personId, hash } = request.params;
      const avatar = await profile.avatarContent(database, workspaceId, personId, hash);
      return reply
        .header('content-type', avatar.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(avatar.bytes);
    },
  );
}
