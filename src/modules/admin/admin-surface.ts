import type { FastifyInstance } from 'fastify';
import { type Caller, systemCaller } from '../../lib/caller.js';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../../lib/schemas.js';
import { isUuid } from '../../lib/validate.js';
import { findWorkspace } from '../workspaces/workspaces.repository.js';

/** What every admin route's OpenAPI entry shares. */
export const adminDoc = { tags: ['admin'], security: [{ adminToken: [] }] };
/** The errors of an admin route: no 403 (the token is all or nothing) and no quota. */
export const ADMIN_ERRORS = errorResponses(400, 401, 404, 429, 500, 503);
export const ADMIN_WRITE_ERRORS = errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503);

/**
 * The operator acting on a workspace as the system (source `system` in the audit log); a workspace that
 * does not exist (or an id that is not one) is a 404 before anything is read or written.
 */
export async function operatorOn(app: FastifyInstance, workspaceId: string): Promise<Caller> {
  const id = workspaceId.toLowerCase();
  const caller = systemCaller(id, app.ctx.clock.now());
  if (!isUuid(id) || !(await findWorkspace(app.ctx.database.db, caller.access))) throw errors.notFound('Workspace');
  return caller;
}
