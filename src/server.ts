import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type Config, assertPublicUrl } from './config.js';
import { seedDemo } from './modules/workflows/demo/index.js';
import { createFirstWorkspace } from './modules/resources/workspaces/index.js';
import { recordServerUrl } from './db/server-settings.js';
import { isoAt } from './lib/clock.js';
import { keepTickEntryShape } from './lib/tick-entry.js';

/**
 * Where this server answers: PORTAL_URL when given, else the address and port it listens on (PORT=0: the one it
 * was given), a wildcard address as the loopback one. What `portal sessions create` puts into tokens' baseUrl.
 */
function ownUrl(app: FastifyInstance, config: Config): string {
  if (config.portalUrlGiven) return config.portalUrl;
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Starts the server. On the first start of an empty database it creates a workspace and prints its
 * API key once (with `seedDemo`, demo data in it; on a database with a workspace, `seedDemo` says it added none), on stderr (the JSON logs go to stdout, where log shippers read). SIGTERM/SIGINT drain (see shutdown), then close
 * the database.
 */
export async function startServer(config: Config, options: { seedDemo?: boolean } = {}): Promise<FastifyInstance> {
  keepTickEntryShape(); // first: before a full collection can drop the classes (see its comment)
  assertPublicUrl(config);
  const app = await buildApp(config);
  const created = await createFirstWorkspace(app.ctx.database, app.ctx.clock.now());
  if (created && options.seedDemo) {
    const made = await seedDemo(app.ctx.database, created.workspaceId, app.ctx.clock.now(), config.portalUrl);
    process.stderr.write(
      `\nDemo data added to it: ${Object.entries(made)
        .map(([kind, count]) => `${count} ${kind}`)
        .join(', ')}.\n`,
    );
  }
  if (!created && options.seedDemo) {
    // The state right after the README's `npm start` then `npm start -- --seed`: say so rather than nothing.
    process.stderr.write(
      '\n--seed: no demo data added. This database already has a workspace, and --seed (PORTAL_SEED_DEMO=1) fills only\n' +
        'the first workspace, made on the first start of an empty database. To fill a workspace that exists:\n\n' +
        '  npx portal seed --workspace <workspaceId>\n\n' +
        '(or start on an empty database: DATABASE_URL=sqlite:./data/demo.db npm start -- --seed)\n\n',
    );
  }
  if (created) {
    process.stderr.write(
      `\nCreated workspace ${created.workspaceId} with a workspace API key (shown only now):\n\n` +
        `  ${created.apiKey}\n\n` +
        `Try: curl -H 'X-API-KEY: ${created.apiKey}' http://${config.host}:${config.port}/v1/me\n\n`,
    );
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, graceMs: config.shutdownGraceMs }, 'draining: readiness fails, in-flight requests finish, then closing');
    // Keep serving through the grace period so requests already on their way are answered, not reset;
    // then close: no new connections, in-flight requests finish, idle ones close, the database closes.
    app.ctx.lifecycle.draining = true;
    const grace = new Promise((resolve) => setTimeout(resolve, config.shutdownGraceMs));
    grace
      .then(() => app.close())
      .then(
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
  await recordServerUrl(app.ctx.database, ownUrl(app, config), isoAt(app.ctx.clock.now()));
  return app;
}
