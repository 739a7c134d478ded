import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../../lib/errors.js';
import { MAX_IMAGE_BYTES } from '../../../lib/images.js';
import { ADMIN_WRITE_ERRORS, WorkspaceParams, adminDoc } from '../../../lib/schemas.js';
import { logoOf, removeLogo, setLogo } from './workspace-logo.service.js';
import { OperatorWorkspace } from './workspaces.schemas.js';
import { asOperatorWorkspaces } from './workspaces.service.js';

/**
 * The logo's body: the image's bytes, whatever Content-Type the request declares (the type is read from the bytes).
 * No `type`: the stream itself is what the route receives, which no schema could check.
 */
const ImageBytes = Type.Unsafe<Readable | undefined>({ description: `a PNG, JPEG, WebP or GIF image, at most ${MAX_IMAGE_BYTES} bytes` });

/** The body's bytes, up to `limit`: past it, a 413 (a Content-Length announcing more was refused before). */
async function bytesOf(body: unknown, limit: number): Promise<Buffer> {
  if (!(body instanceof Readable)) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) throw errors.payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A workspace's logo on the admin surface (what `portal workspaces update --logo` and `--remove-logo` do). */
export async function workspaceLogoAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, limitStore, config } = app.ctx;
  const view = { limitStore, portalUrl: config.portalUrl };

  // This plugin's bodies only: whatever the Content-Type, the body is the image's bytes (its type read from them),
  // handed over as the raw stream and read here up to MAX_IMAGE_BYTES.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    if (Number(request.headers['content-length'] ?? 0) > MAX_IMAGE_BYTES) return done(errors.payloadTooLarge(MAX_IMAGE_BYTES), undefined);
    done(null, payload);
  });

  app.put(
    '/workspaces/:workspaceId/logo',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminSetWorkspaceLogo',
        summary: "Set or replace a workspace's logo",
        description:
          `The body is the image's bytes: PNG, JPEG, WebP or GIF, read from the bytes whatever the Content-Type says (anything ` +
          `else, SVG included, is a 415 naming \`body\`), at most ${MAX_IMAGE_BYTES} bytes (else 413); an empty body, or an image ` +
          'whose header gives no size, is a 400. Answers the workspace with its new `logoUrl`, which its portal serves publicly ' +
          '(`GET /portal/{workspaceId}/api/workspace/logo/{hash}`): its portal’s bar, its e-mails and its invoice and contract PDFs ' +
          'show it beside its name (PDFs only a PNG or a JPEG).',
        params: WorkspaceParams,
        consumes: ['*/*'],
        body: { content: { 'application/octet-stream': { schema: ImageBytes } } },
        response: { 200: OperatorWorkspace, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => {
      const logo = logoOf(await bytesOf(request.body, MAX_IMAGE_BYTES));
      const workspace = await setLogo(database, request.caller, logo);
      const [answer] = await asOperatorWorkspaces(
        database,
        view,
        [workspace],
        request.caller.actor.at,
        new Map([[workspace.id, logo.hash]]),
      );
      return answer;
    },
  );

  app.delete(
    '/workspaces/:workspaceId/logo',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminRemoveWorkspaceLogo',
        summary: "Remove a workspace's logo",
        description:
          'Its portal, e-mails and documents show its name alone again; the old logo’s URL answers 404. Answers the workspace, ' +
          'without `logoUrl` (none set: the same).',
        params: WorkspaceParams,
        response: { 200: OperatorWorkspace, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => {
      const workspace = await removeLogo(database, request.caller);
      const [answer] = await asOperatorWorkspaces(database, view, [workspace], request.caller.actor.at, new Map());
      return answer;
    },
  );
}
