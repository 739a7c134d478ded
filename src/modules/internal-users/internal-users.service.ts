import { randomUUID } from 'node:crypto';
import addFormats from 'ajv-formats';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/database.js';
import type { PageRequest, PageResult, PageTokens } from '../../db/paging.js';
import type { DB } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { type Access, workspaceAccess } from '../../lib/access.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import { type Actor, recordAudit } from '../audit-log/audit-log.writer.js';
import { existingCompanyIds } from '../companies/companies.repository.js';
import * as repo from './internal-users.repository.js';
import { type InternalUser, ROLES } from './internal-users.schemas.js';

// The rule of `format: 'email'` in request bodies, so every way in accepts the same addresses.
const EMAIL = addFormats.default.get('email') as RegExp;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface InternalUserInput {
  email: string;
  givenName: string;
  familyName: string;
  /** `staff` when absent. */
  role?: string;
  /** When given, the user sees only these companies (and their clients). */
  companyAccessList?: readonly string[];
}

/** Creates an internal user of `actor.workspaceId` and its `internalUserCreated` audit entry, in one transaction. */
export async function createInternalUser(db: Kysely<DB>, actor: Actor, input: InternalUserInput): Promise<InternalUser> {
  const workspaceId = actor.workspaceId;
  const email = input.email.trim();
  const givenName = input.givenName.trim();
  const familyName = input.familyName.trim();
  const role = input.role ?? 'staff';
  const problems: FieldProblem[] = [];
  if (!EMAIL.test(email)) problems.push({ path: 'email', message: 'must be an email address' });
  if (!givenName) problems.push({ path: 'givenName', message: 'must not be empty' });
  if (!familyName) problems.push({ path: 'familyName', message: 'must not be empty' });
  if (!(ROLES as readonly string[]).includes(role)) problems.push({ path: 'role', message: `must be one of: ${ROLES.join(', ')}` });
  const companies = input.companyAccessList === undefined ? undefined : [...new Set(input.companyAccessList)];
  if (companies?.length === 0) problems.push({ path: 'companyAccessList', message: 'must name at least one company' });
  if (problems.length) throw errors.badRequest(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);

  const id = randomUUID();
  const at = isoAt(actor.at);
  return inTransaction(db, async (trx) => {
    if (companies) {
      const known = await existingCompanyIds(trx, workspaceAccess(workspaceId), companies);
      const unknown = companies.filter((c) => !known.has(c));
      if (unknown.length) {
        throw errors.badRequest(
          `companyAccessList: not a company of this workspace: ${unknown.join(', ')}`,
          unknown.map((c) => ({ path: 'companyAccessList', message: `${c} is not a company of this workspace` })),
        );
      }
    }
    const row = {
      id,
      email,
      email_key: email.toLowerCase(),
      given_name: givenName,
      family_name: familyName,
      role: role as InternalUser['role'],
      is_client_access_limited: companies ? 1 : 0,
      company_access_list: companies ? companies.join(',') : '',
      avatar_image_url: null,
      created_at: at,
      updated_at: at,
    };
    try {
      await repo.insertInternalUser(trx, workspaceId, row);
    } catch (error) {
      // The unique index on (workspace_id, email_key) decides, so two concurrent creates cannot both pass.
      if (isUniqueViolation(error)) throw errors.conflict(`An internal user with email ${email} already exists in this workspace.`);
      throw error;
    }
    await recordAudit(trx, actor, {
      eventType: 'internalUserCreated',
      description: `Internal user ${email} created`,
      context: { internalUserId: id, email, role, ...(companies ? { companyAccessList: companies } : {}) },
    });
    return repo.toInternalUser({ ...row, workspace_id: workspaceId });
  });
}

// A client session sees no staff (contract §1: everything but itself, its companies, installs and notifications is 404).
const seesInternalUsers = (access: Access) => access.clientId === null;

export async function getInternalUser(db: Kysely<DB>, access: Access, id: string): Promise<InternalUser> {
  const row = UUID.test(id) && seesInternalUsers(access) ? await repo.findInternalUser(db, access.workspaceId, id.toLowerCase()) : undefined;
  if (!row) throw errors.notFound('Internal user');
  return repo.toInternalUser(row);
}

export async function listInternalUsers(db: Kysely<DB>, access: Access, page: PageRequest, tokens: PageTokens): Promise<PageResult<InternalUser>> {
  if (!seesInternalUsers(access)) return { rows: [] };
  const result = await repo.listInternalUsers(db, access.workspaceId, page, tokens);
  return { rows: result.rows.map(repo.toInternalUser), ...(result.nextToken ? { nextToken: result.nextToken } : {}) };
}
