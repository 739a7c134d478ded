import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { countWorkspaces } from './modules/workspaces/workspaces.repository.js';
import { createWorkspace } from './modules/workspaces/workspaces.service.js';

/**
 * Starts the server. On the first start of an empty database it creates a workspace and prints its
 * API key once (to the terminal, never to the logs). SIGTERM/SIGINT drain in-flight requests, then
 * close the database.
 */
export async function startServer(config: Config): Promise<FastifyInstance> {
  const app = await buildApp(config);
  if ((await countWorkspaces(app.ctx.db)) === 0) {
    const created = await createWorkspace(app.ctx.db, { name: 'My workspace' }, app.ctx.clock);
    process.stdout.write(
      `\nCreated workspace ${created.workspaceId} with a workspace API key (shown only now):\n\n` +
        `  ${created.apiKey}\n\n` +
        `Try: curl -H 'X-API-KEY: ${created.apiKey}' http://${config.host}:${config.port}/v1/me\n\n`,
    );
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining in-flight requests, then closing');
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, 'error while closing');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  return app;
}
