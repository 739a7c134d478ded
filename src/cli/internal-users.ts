import type { Database } from '../db/database.js';
import { systemClock } from '../lib/clock.js';
import { errors } from '../lib/errors.js';
import { systemActor } from '../modules/audit-log/audit-log.writer.js';
import { createInternalUser } from '../modules/internal-users/internal-users.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.repository.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption } from './output.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USAGE =
  'usage: portal internal-users create --workspace W --email E --given-name G --family-name F [--role admin|staff] [--limit-to-companies ID,ID]';

export async function internalUsersCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub !== 'create') throw new UsageError(USAGE);
  const workspaceId = requireOption(values, 'workspace');
  const email = requireOption(values, 'email');
  const givenName = requireOption(values, 'given-name');
  const familyName = requireOption(values, 'family-name');
  const limitTo = values['limit-to-companies'];
  const companyAccessList = limitTo === undefined ? undefined : limitTo.split(',').map((s) => s.trim()).filter(Boolean);
  if (companyAccessList?.length === 0) throw new UsageError('--limit-to-companies needs at least one company id');
  if (!UUID.test(workspaceId) || !(await findWorkspace(database.db, workspaceId))) throw errors.notFound('Workspace');

  const user = await createInternalUser(database.db, systemActor(workspaceId, systemClock.now()), {
    email,
    givenName,
    familyName,
    role: values.role,
    companyAccessList,
  });
  const access = user.isClientAccessLimited ? `limited to ${user.companyAccessList.length} compan${user.companyAccessList.length === 1 ? 'y' : 'ies'}` : 'all companies';
  printResult(json, { id: user.id }, `Internal user ${user.id} created: ${user.givenName} ${user.familyName} <${user.email}>, ${user.role}, ${access}.`);
}
