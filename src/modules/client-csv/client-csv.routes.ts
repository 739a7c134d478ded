import type { FastifyInstance } from 'fastify';

/** Placeholder (being written): POST /admin/workspaces/{workspaceId}/imports/clients, GET …/exports/clients. */
export async function clientCsvAdminRoutes(_app: FastifyInstance) {}
