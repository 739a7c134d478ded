import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyRequest, type FastifyHttpOptions } from 'fastify';
import type { Config } from './config.js';
import { type ContextOptions, buildContext } from './context.js';
import type { Database } from './db/database.js';
import { openDatabase } from './db/open.js';
import { migrateToLatest } from './db/migrate.js';
import { ErrorBody, QuotaExceededBody } from './lib/schemas.js';
import { auditLogRoutes } from './modules/resources/audit-log/index.js';
import {
  paymentRoutes,
  catalogAdminRoutes,
  catalogRoutes,
  invoiceAdminRoutes,
  invoiceRoutes,
  subscriptionRoutes,
} from './modules/resources/billing/index.js';
import { clientCsvAdminRoutes } from './modules/workflows/client-csv/index.js';
import { apiKeyAdminRoutes, sessionAdminRoutes, tokenAdminRoutes, tokenRoutes } from './modules/resources/credentials/index.js';
import { customFieldRoutes } from './modules/resources/custom-fields/index.js';
import { clientRoutes, companyRoutes } from './modules/resources/directory/index.js';
import { emailOutboxAdminRoutes } from './modules/resources/email-outbox/index.js';
import { fileContentRoutes, fileRoutes } from './modules/resources/files/index.js';
import { healthRoutes } from './modules/surfaces/health/index.js';
import { installAdminRoutes, installRoutes } from './modules/resources/installs/index.js';
import { internalUserAdminRoutes, internalUserRoutes } from './modules/resources/internal-users/index.js';
import { meRoutes } from './modules/surfaces/me/index.js';
import { messageRoutes } from './modules/resources/messages/index.js';
import { noteRoutes } from './modules/resources/notes/index.js';
import { formAdminRoutes, formRoutes } from './modules/resources/forms/index.js';
import { contractAdminRoutes, contractRoutes } from './modules/resources/contracts/index.js';
import { qaAdminRoutes } from './modules/surfaces/qa/index.js';
import { appApiRoutes } from './modules/resources/app-api/index.js';
import { oidcCallbackRoutes, signInAdminRoutes, signInRoutes } from './modules/surfaces/sign-in/index.js';
import { staffAdminRoutes, staffRoutes } from './modules/workflows/staff/index.js';
import { taskAdminRoutes, taskRoutes } from './modules/resources/tasks/index.js';
import { notificationLinkRoutes, notificationPreferenceRoutes, notificationRoutes } from './modules/resources/notifications/index.js';
import { operatorSessionRoutes } from './modules/surfaces/operator-sessions/index.js';
import { appEventRoutes, webhookAdminRoutes } from './modules/resources/webhooks/index.js';
import { testClockAdminRoutes, testClockRoutes } from './modules/resources/test-clocks/index.js';
import { workspaceAdminRoutes, workspaceLogoAdminRoutes, workspaceRoutes } from './modules/resources/workspaces/index.js';
import adminSurface from './plugins/admin.js';
import { consoleOffRoutes, consoleRoutes } from './plugins/console.js';
import { portalPageRoutes } from './plugins/portal-pages.js';
import { portalCsrf, rewritePortalApiUrl } from './plugins/portal-session.js';
import { portalSignIn } from './plugins/portal-sign-in.js';
import { landingRoutes } from './plugins/landing.js';
import auth from './plugins/auth.js';
import authorization from './plugins/authorization.js';
import limits from './plugins/limits.js';
import errorHandling from './plugins/errors.js';
import idempotency from './plugins/idempotency.js';
import metrics, { metricsOffRoutes } from './plugins/metrics.js';
import openapi from './plugins/openapi.js';
import requestGuards, { answerClientError, answerFrameworkError, parseQueryString } from './plugins/request-guards.js';
import { installValidators, lazySerializers } from './plugins/validation.js';

export interface BuildOptions extends ContextOptions {
  /** An already open database (tests share one between app instances); otherwise opened from config. */
  database?: Database;
  /** Pino destination stream (tests capture logs); stdout by default. */
  logStream?: NodeJS.WritableStream;
  /** Extra routes in the authenticated /v1 scope: tests of cross-cutting plugins use it. */
  extraV1Routes?: (v1: FastifyInstance) => void | Promise<void>;
}

/** Query values that are safe to log (the rest, `email=` and the other filters, may be personal data). */
const LOGGED_QUERY_VALUES = new Set(['limit']);

/** A request as logged: Fastify's default fields, with query values other than `limit` as `[redacted]`. */
function requestForLog(request: FastifyRequest) {
  const url = request.url.replace(/([?&])([^=&]*)=([^&]*)/g, (pair, separator: string, name: string) =>
    LOGGED_QUERY_VALUES.has(name) ? pair : `${separator}${name}=[redacted]`,
  );
  return { method: request.method, url, host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}

/**
 * Every module's routes, in the order the OpenAPI document lists them: `v1` under /v1 (behind auth,
 * limits, permissions and idempotency), `admin` under /admin (behind the admin plugin: the operator's
 * token or console session, and `request.caller` for the route's workspace).
 */
const MODULE_ROUTES: readonly { v1?: FastifyPluginAsync[]; admin?: FastifyPluginAsync[] }[] = [
  { admin: [operatorSessionRoutes] },
  { v1: [meRoutes] },
  { v1: [tokenRoutes], admin: [apiKeyAdminRoutes, tokenAdminRoutes, sessionAdminRoutes] },
  { v1: [workspaceRoutes, testClockRoutes], admin: [workspaceAdminRoutes, workspaceLogoAdminRoutes, testClockAdminRoutes] },
  { v1: [clientRoutes, companyRoutes], admin: [clientCsvAdminRoutes] },
  { v1: [internalUserRoutes, staffRoutes], admin: [internalUserAdminRoutes, staffAdminRoutes] },
  { v1: [customFieldRoutes] },
  { v1: [installRoutes], admin: [installAdminRoutes, signInAdminRoutes] },
  { v1: [notificationRoutes, notificationPreferenceRoutes], admin: [emailOutboxAdminRoutes] },
  { v1: [auditLogRoutes] },
  { v1: [appEventRoutes], admin: [webhookAdminRoutes] },
  { v1: [catalogRoutes, invoiceRoutes, subscriptionRoutes, paymentRoutes], admin: [catalogAdminRoutes, invoiceAdminRoutes] },
  { v1: [messageRoutes] },
  { v1: [taskRoutes], admin: [taskAdminRoutes] },
  { v1: [noteRoutes] },
  { v1: [fileRoutes] },
  { v1: [formRoutes], admin: [formAdminRoutes] },
  { v1: [contractRoutes], admin: [contractAdminRoutes] },
  { admin: [qaAdminRoutes] },
  { v1: [appApiRoutes] },
];

/**
 * The routes outside /v1 and /admin, in order, each scope with the plugins that guard it: health; files' signed upload
 * and download URLs (the signature stands for the credential); the sign-in API people's browsers call (cookie
 * sessions, no API key); the OpenID callback; the portal's pages (dist/portal) around the sign-in API
 * (/portal/{workspaceId}/… but not …/api/…); the landing page at /; a notification e-mail's link to its portal.
 */
const SURFACE_ROUTES: readonly { routes: FastifyPluginAsync; prefix?: string; guards?: FastifyPluginAsync[] }[] = [
  { routes: healthRoutes },
  { routes: fileContentRoutes },
  { routes: signInRoutes, prefix: '/portal/:workspaceId/api', guards: [portalCsrf, portalSignIn] },
  { routes: oidcCallbackRoutes, prefix: '/portal/oidc' },
  { routes: portalPageRoutes },
  { routes: landingRoutes },
  { routes: notificationLinkRoutes },
];

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The server's own settings: logging without credentials, request ids, limits on slow clients, the portal's URL rewrite. */
function serverOptions(config: Config, options: BuildOptions): FastifyHttpOptions<Server> {
  return {
    logger: {
      level: config.logLevel,
      // Credentials never reach the logs, whatever a serializer is later taught to print.
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'apiKey', 'token'], censor: '[redacted]' },
      serializers: { req: requestForLog },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: config.bodyLimit,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { querystringParser: parseQueryString },
    // A person's cookie reaches the API under its portal: /portal/{workspaceId}/v1/… is /v1/… (plugins/portal-session.ts).
    rewriteUrl: rewritePortalApiUrl,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // A slow or stalled client cannot hold a connection: headers within 10 s, the whole request within
    // REQUEST_TIMEOUT_MS (checked every second), a socket silent for four times that closed.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs * 4,
    http: { headersTimeout: Math.min(10_000, config.requestTimeoutMs), connectionsCheckingInterval: 1000 },
  };
}

/** Builds the whole service: storage (migrated), plugins, then every module, explicitly. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const database = options.database ?? openDatabase(config.databaseUrl, { poolMax: config.databasePoolMax });
  const ownsDatabase = options.database === undefined;
  await migrateToLatest(database);

  const app = Fastify(serverOptions(config, options));
  const { ctx, close } = await buildContext(config, database, app.log, options);
  app.decorate('ctx', ctx);
  app.addHook('onClose', async () => {
    await close();
    if (ownsDatabase) await database.close();
  });
  // Before the server waits for its connections to end: an open event stream would otherwise hold it open for good.
  app.addHook('preClose', async function closeEventStreams() {
    ctx.events.streams.closeAll();
  });

  installValidators(app);
  app.removeContentTypeParser('text/plain');
  app.addSchema(ErrorBody);
  app.addSchema(QuotaExceededBody);
  app.addHook('onRequest', function tagRequest(request, reply, done) {
    reply.header('x-request-id', request.id);
    if (ctx.lifecycle.draining) reply.header('connection', 'close');
    done();
  });

  await app.register(errorHandling, { bodyLimit: config.bodyLimit });
  await app.register(requestGuards);
  await app.register(openapi);
  // Before the routes, so that its hook measures every one of them; behind the admin token, like /admin.
  if (config.adminToken || config.metricsPort !== undefined)
    await app.register(metrics, { adminToken: config.adminToken, metricsPort: config.metricsPort, host: config.host });
  if (!config.adminToken) await app.register(metricsOffRoutes, { metricsPort: config.metricsPort });
  for (const { routes, prefix, guards = [] } of SURFACE_ROUTES)
    await app.register(
      async (scope) => {
        for (const guard of guards) await scope.register(guard);
        await scope.register(routes);
      },
      prefix ? { prefix } : {},
    );
  await app.register(
    async (v1) => {
      await v1.register(auth);
      if (config.limits.enabled) await v1.register(limits);
      await v1.register(authorization);
      await v1.register(idempotency);
      for (const { v1: routes = [] } of MODULE_ROUTES) for (const plugin of routes) await v1.register(plugin);
      const extra = options.extraV1Routes;
      if (extra) await v1.register(async (scope) => extra(scope));
    },
    { prefix: '/v1' },
  );
  // Without an admin token the admin surface does not exist: /admin paths are 404s like any unknown route.
  if (config.adminToken) {
    const { adminToken } = config;
    await app.register(
      async (admin) => {
        await admin.register(adminSurface, { adminToken });
        for (const { admin: routes = [] } of MODULE_ROUTES) for (const plugin of routes) await admin.register(plugin);
      },
      { prefix: '/admin' },
    );
    await app.register(consoleRoutes);
  } else await app.register(consoleOffRoutes);
  return app;
}
