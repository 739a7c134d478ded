import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AUTHENTICATED_ERRORS, Id, errorResponses } from '../../lib/schemas.js';

export const Me = Type.Object(
  {
    object: Type.Literal('me'),
    workspaceId: Id,
    type: Type.Union([Type.Literal('workspace'), Type.Literal('app'), Type.Literal('internalUser'), Type.Literal('client')], {
      description: 'workspace key, app key (a bearer token is `app`), or the end user of a session',
    }),
    id: Type.String({ description: 'the acting identity: the key id for a workspace key, the app id for an app (or its bearer token), the user id for a session' }),
    apiKeyId: Type.String({ format: 'uuid', description: 'the API key behind the request (a bearer token’s or session’s key included)' }),
    appId: Type.Optional(Type.String({ description: 'the app of an app key, bearer token or session' })),
    companyId: Type.Optional(Type.String({ description: 'client session: the company the session is for' })),
    tokenId: Type.Optional(Type.String({ description: 'session: its tokenId' })),
  },
  { title: 'Me' },
);

export default async function meRoutes(app: FastifyInstance) {
  app.get(
    '/me',
    {
      config: { clientSession: true },
      schema: {
        tags: ['me'],
        summary: 'The caller',
        response: { 200: Me, ...errorResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const p = request.principal;
      const id = p.internalUserId ?? p.clientId ?? (p.kind === 'app' && p.appId ? p.appId : p.apiKeyId);
      return {
        object: 'me' as const,
        workspaceId: p.workspaceId,
        type: p.kind,
        id,
        apiKeyId: p.apiKeyId,
        ...(p.appId ? { appId: p.appId } : {}),
        ...(p.companyId ? { companyId: p.companyId } : {}),
        ...(p.sessionId ? { tokenId: p.sessionId } : {}),
      };
    },
  );
}
