import type { Database } from '../db/database.js';
import { createInternalUser } from '../modules/internal-users/internal-users.service.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption, workspaceCaller } from './output.js';

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
  const user = await createInternalUser(database, await workspaceCaller(database, workspaceId), {
    email,
    givenName,
    familyName,
    role: values.role,
    companyAccessList,
  });
  const access = user.isClientAccessLimited ? `limited to ${user.companyAccessList.length} compan${user.companyAccessList.length === 1 ? 'y' : 'ies'}` : 'all companies';
  printResult(json, { id: user.id }, `Internal user ${user.id} created: ${user.givenName} ${user.familyName} <${user.email}>, ${user.role}, ${access}.`);
}
