import type { FastifyInstance } from 'fastify';
import { apiKeyAdminRoutes } from '../api-keys/api-keys.routes.js';
import { catalogAdminRoutes } from '../catalog/catalog.routes.js';
import { clientCsvAdminRoutes } from '../client-csv/client-csv.routes.js';
import emailOutboxAdminRoutes from '../email-outbox/email-outbox.routes.js';
import { installAdminRoutes } from '../installs/installs.routes.js';
import { internalUserAdminRoutes } from '../internal-users/internal-users.routes.js';
import { invoiceAdminRoutes } from '../invoices/invoices.routes.js';
import sessionAdminRoutes from '../sessions/sessions.routes.js';
import { tokenAdminRoutes } from '../tokens/tokens.routes.js';
import { webhookAdminRoutes } from '../webhooks/webhooks.routes.js';
import { workspaceAdminRoutes } from '../workspaces/workspaces.routes.js';
import { adminGuard } from './admin.guard.js';
import { operatorSessionRoutes } from './operator-session.routes.js';

/**
 * The admin surface (contract §7), registered under /admin only when PORTAL_ADMIN_TOKEN is set:
 * without it the surface does not exist, and every /admin path is a 404 like any unknown route.
 * Everything the `portal` command does on a workspace is here too, so the admin console needs nothing else.
 */
export default async function adminRoutes(app: FastifyInstance, opts: { adminToken: string }) {
  app.addHook('onRequest', adminGuard(app, opts.adminToken));
  await app.register(operatorSessionRoutes, { adminToken: opts.adminToken });
  await app.register(workspaceAdminRoutes);
  await app.register(apiKeyAdminRoutes);
  await app.register(tokenAdminRoutes);
  await app.register(internalUserAdminRoutes);
  await app.register(sessionAdminRoutes);
  await app.register(installAdminRoutes);
  await app.register(emailOutboxAdminRoutes);
  await app.register(webhookAdminRoutes);
  await app.register(catalogAdminRoutes);
  await app.register(invoiceAdminRoutes);
  await app.register(clientCsvAdminRoutes);
}
