import type { FastifyInstance } from 'fastify';
import type { Caller } from '../../lib/caller.js';
import { errorResponses } from '../../lib/schemas.js';
import { operatorCaller } from '../workspaces/workspaces.service.js';

/** What every admin route's OpenAPI entry shares. */
export const adminDoc = { tags: ['admin'], security: [{ adminToken: [] }] };
/** The errors of an admin route: no 403 (the token is all or nothing) and no quota. */
export const ADMIN_ERRORS = errorResponses(400, 401, 404, 429, 500, 503);
export const ADMIN_WRITE_ERRORS = errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503);

/** The operator acting on the route's workspace as the system (source `system` in the audit log); 404 for an unknown one. */
export const operatorOn = (app: FastifyInstance, workspaceId: string): Promise<Caller> =>
  operatorCaller(app.ctx.database, workspaceId, app.ctx.clock.now());
