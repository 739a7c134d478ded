import { extname } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appOrigins } from '../modules/resources/installs/index.js';
import { builtDir, servesBuiltPages } from './built-pages.js';
import { pageSecurityHeaders } from './page-headers.js';

const NOT_BUILT = "The portal's pages are not built: run `npm run build` (npm start does), then reload.\n";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A page's first segment: anything but `api`. The API (registered under /portal/:workspaceId/api) keeps its paths
 * whole, so an unknown /api path stays the API's own 404, and one served with another method its 405.
 */
const PAGE = ':page(^(?!api$).+$)';

type PageRequest = FastifyRequest<{ Params: { workspaceId: string; page?: string; '*'?: string } }>;

/**
 * The pages people of a workspace see (sign-in, the links they are e-mailed, their account), a single-page app
 * built by Vite into dist/portal: every page path under /portal/{workspaceId}/ answers index.html (the app routes
 * on the client), its hashed files are at /portal/assets/ (cached for a year); the same headers as the console's,
 * but for the frame-src of a workspace with published apps (their origins).
 * Served whatever the configuration: these pages are the sign-in API's front end.
 */
export async function portalPageRoutes(app: FastifyInstance, opts: { root?: string } = {}) {
  const pages = await servesBuiltPages(app, opts.root ?? builtDir('portal'), NOT_BUILT);
  // Without the service's context (the pages served alone), no app is installed anywhere.
  const database = app.hasDecorator('ctx') ? app.ctx.database : undefined;

  // A static segment: find-my-way matches it before the :workspaceId parameter, which it could not be (not a UUID).
  app.get<{ Params: { '*': string } }>('/portal/assets/*', { schema: { hide: true } }, (request, reply) => {
    return pages.sendFile(reply, `assets/${request.params['*']}`) ?? reply.callNotFound();
  });

  const page = async (request: PageRequest, reply: FastifyReply) => {
    const { workspaceId } = request.params;
    if (!UUID.test(workspaceId)) return reply.callNotFound();
    // The session cookie's Path is /portal/{lowercase id}, and a cookie's path is matched case-sensitively.
    if (workspaceId !== workspaceId.toLowerCase()) {
      const at = request.url.indexOf(workspaceId);
      if (at < 0) return reply.callNotFound(); // written percent-encoded: no browser does that
      return reply.redirect(request.url.slice(0, at) + workspaceId.toLowerCase() + request.url.slice(at + workspaceId.length), 308);
    }
    // A file's name (a stale script URL) gets a 404, never the app.
    if (extname(request.params['*'] || request.params.page || '') !== '') return reply.callNotFound();
    // The apps page frames the workspace's published apps: their origins, and only theirs, join the policy's frame-src.
    const origins = database ? await appOrigins(database, workspaceId) : [];
    return pages.sendIndex(reply, origins.length > 0 ? pageSecurityHeaders({ frameSrc: origins }) : undefined);
  };
  for (const path of ['/portal/:workspaceId', '/portal/:workspaceId/', `/portal/:workspaceId/${PAGE}`, `/portal/:workspaceId/${PAGE}/*`])
    app.get(path, { schema: { hide: true } }, page);
}
