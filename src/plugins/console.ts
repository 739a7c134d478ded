import type { FastifyInstance } from 'fastify';

/** Placeholder (being written): serves the admin console's built files at /console. */
export async function consoleRoutes(_app: FastifyInstance) {}
