import type { FastifyInstance } from 'fastify';
import { clientCsvAdminRoutes } from '../client-csv/client-csv.routes.js';
import { catalogAdminRoutes } from '../catalog/catalog.routes.js';
import { invoiceAdminRoutes } from '../invoices/invoices.routes.js';
import emailOutboxAdminRoutes from '../email-outbox/email-outbox.routes.js';
import { installAdminRoutes } from '../installs/installs.routes.js';
import { webhookAdminRoutes } from '../webhooks/webhooks.routes.js';
import sessionAdminRoutes from '../sessions/sessions.routes.js';
import { adminGuard } from './admin.guard.js';

/**
 * The admin surface (contract §7), registered under /admin only when PORTAL_ADMIN_TOKEN is set:
 * without it the surface does not exist, and every /admin path is a 404 like any unknown route.
 */
export default async function adminRoutes(app: FastifyInstance, opts: { adminToken: string }) {
  app.addHook('onRequest', adminGuard(app, opts.adminToken));
  await app.register(sessionAdminRoutes);
  await app.register(installAdminRoutes);
  await app.register(emailOutboxAdminRoutes);
  await app.register(webhookAdminRoutes);
  await app.register(catalogAdminRoutes);
  await app.register(invoiceAdminRoutes);
  await app.register(clientCsvAdminRoutes);
}
