import type { FastifyInstance } from 'fastify';

/** Public read routes of the catalog (placeholder: filled in by the catalog work). */
export default async function catalogRoutes(_fastify: FastifyInstance) {}

/** Admin routes of the catalog (placeholder). */
export async function catalogAdminRoutes(_fastify: FastifyInstance) {}
