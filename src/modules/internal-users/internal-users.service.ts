import { randomUUID } from 'node:crypto';
import addFormats from 'ajv-formats';
import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import { type Access, type Caller, INTERNAL_USER_ROLES as ROLES } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import { fallbackColorFor } from '../../lib/fallback-color.js';
import { recordAudit } from '../audit-log/audit-log.writer.js';
import { existingCompanyIds } from '../companies/companies.repository.js';
import * as repo from './internal-users.repository.js';
import type { InternalUser, InternalUserListQuery } from './internal-users.schemas.js';

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

/** Creates an internal user of the caller's workspace and its `internalUserCreated` audit entry, in one unit of work. */
export async function createInternalUser(database: Database, caller: Caller, input: InternalUserInput): Promise<InternalUser> {
  const { access, actor } = caller;
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

  if (companies) {
    const known = await existingCompanyIds(database.db, access, companies);
    const unknown = companies.filter((c) => !known.has(c));
    if (unknown.length) {
      throw errors.badRequest(
        `companyAccessList: not a company of this workspace: ${unknown.join(', ')}`,
        unknown.map((c) => ({ path: 'companyAccessList', message: `${c} is not a company of this workspace` })),
      );
    }
  }
  const at = isoAt(actor.at);
  const id = randomUUID();
  const user: InternalUser = {
    id,
    object: 'internalUser',
    createdAt: at,
    updatedAt: at,
    email,
    givenName,
    familyName,
    role: role as InternalUser['role'],
    isClientAccessLimited: companies !== undefined,
    companyAccessList: companies ?? [],
    fallbackColor: fallbackColorFor(id),
  };
  return unitOfWork(database, async (work) => {
    repo.insertInternalUser(work, access, user);
    recordAudit(work, actor, {
      eventType: 'internalUserCreated',
      description: `Internal user ${email} created`,
      context: { internalUserId: user.id, email, role, ...(companies ? { companyAccessList: companies } : {}) },
    });
    return user;
  });
}

// A client session sees no staff (contract §1: everything but itself, its companies, installs and notifications is 404).
const seesInternalUsers = (access: Access) => access.clientId === null;

export async function getInternalUser(database: Database, caller: Caller, id: string): Promise<InternalUser> {
  const user = UUID.test(id) && seesInternalUsers(caller.access) ? await repo.findInternalUser(database.db, caller.access, id.toLowerCase()) : undefined;
  if (!user) throw errors.notFound('Internal user');
  return user;
}

export async function listInternalUsers(database: Database, caller: Caller, query: InternalUserListQuery, tokens: PageTokens): Promise<Page<InternalUser>> {
  if (!seesInternalUsers(caller.access)) return { data: [] };
  return repo.listInternalUsers(database.db, caller.access, query, tokens);
}
