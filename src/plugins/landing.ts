import type { FastifyInstance } from 'fastify';
import { soleWorkspaceId } from '../modules/resources/workspaces/index.js';
import { pageSecurityHeaders } from './page-headers.js';

/** The portal's entry: one workspace's link, or where each one's is (ids are UUIDs: nothing to escape). */
function portalItem(workspaceId: string | undefined): string {
  if (workspaceId !== undefined)
    return `<li><a href="/portal/${workspaceId}/">The portal</a>: where the workspace's clients and staff sign in.</li>`;
  return "<li>The portal: each workspace's is at <code>/portal/{workspaceId}/</code>, where its clients and staff sign in.</li>";
}

function landingPage(workspaceId: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portal Platform</title>
</head>
<body>
<main>
<h1>Portal Platform</h1>
<p>This server runs the Portal Platform API.</p>
<ul>
${portalItem(workspaceId)}
<li><a href="/docs">The API reference</a> (the OpenAPI document: <a href="/openapi.json">/openapi.json</a>).</li>
<li><a href="/console">The admin console</a>: for the operator of this deployment.</li>
</ul>
</main>
</body>
</html>
`;
}

/**
 * \`/\`: a small page linking the portal, the API reference and the console, rather than the API's JSON 404. Plain
 * HTML with no script or style, under the console's headers and Content-Security-Policy.
 */
export async function landingRoutes(app: FastifyInstance) {
  const headers = pageSecurityHeaders();
  const { database } = app.ctx;
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    const page = landingPage(await soleWorkspaceId(database));
    // no-store: the portal's link follows the workspaces there are.
    return reply.headers(headers).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
  });
}
