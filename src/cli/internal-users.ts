import { validInput } from '../lib/validate.js';
import { createInternalUser, InternalUserAccessUpdate, InternalUserCreate } from '../modules/resources/internal-users/index.js';
import { changeInternalUserAccess, removeInternalUser } from '../modules/workflows/staff/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const internalUsersGroup: CommandGroup = {
  create: command({
    usage:
      'portal internal-users create --workspace W --email E --given-name G --family-name F [--role admin|staff] [--limit-to-companies ID,ID]',
    options: {
      workspace: { type: 'string' },
      email: { type: 'string' },
      'given-name': { type: 'string' },
      'family-name': { type: 'string' },
      role: { type: 'string' },
      'limit-to-companies': { type: 'string' },
    },
    async run(values, { database, json }) {
      requireOption(values, 'workspace');
      const input = {
        email: requireOption(values, 'email').trim(),
        givenName: requireOption(values, 'given-name'),
        familyName: requireOption(values, 'family-name'),
        ...given({
          role: values.role,
          companyAccessList: companyList(values['limit-to-companies']),
        }),
      };
      const caller = await requireWorkspace(database, values);
      const user = await createInternalUser(database, caller, validInput(InternalUserCreate, input));
      printResult(
        json,
        { id: user.id },
        `Internal user ${user.id} created: ${user.givenName} ${user.familyName} <${user.email}>, ${user.role}, ${accessOf(user)}.`,
      );
    },
  }),
  update: command({
    usage:
      'portal internal-users update --workspace W --internal-user U [--role admin|staff] [--limit-to-companies ID,ID | --all-companies]',
    options: {
      workspace: { type: 'string' },
      'internal-user': { type: 'string' },
      role: { type: 'string' },
      'limit-to-companies': { type: 'string' },
      'all-companies': { type: 'boolean' },
    },
    async run(values, { database, json }) {
      const id = requireOption(values, 'internal-user');
      const companies = companyList(values['limit-to-companies']);
      if (companies && values['all-companies']) throw new UsageError('--limit-to-companies and --all-companies: one or the other');
      const input = given({ role: values.role, companyAccessList: values['all-companies'] ? null : companies });
      if (Object.keys(input).length === 0) throw new UsageError('nothing to change: --role, --limit-to-companies or --all-companies');
      const caller = await requireWorkspace(database, values);
      const user = await changeInternalUserAccess(database, caller, id, validInput(InternalUserAccessUpdate, input));
      printResult(
        json,
        { id: user.id, role: user.role, companyAccessList: user.isClientAccessLimited ? user.companyAccessList : null },
        `Internal user ${user.id}: ${user.role}, ${accessOf(user)}.`,
      );
    },
  }),
  delete: command({
    usage: 'portal internal-users delete --workspace W --internal-user U',
    options: { workspace: { type: 'string' }, 'internal-user': { type: 'string' } },
    async run(values, { database, json }) {
      const id = requireOption(values, 'internal-user');
      const caller = await requireWorkspace(database, values);
      await removeInternalUser(database, caller, id);
      printResult(json, { id, deleted: true }, `Internal user ${id} removed: its sessions ended, its tasks unassigned.`);
    },
  }),
};

/** A comma-separated list of company ids; a usage error when given empty. */
function companyList(option: string | undefined): string[] | undefined {
  const list = option
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list?.length === 0) throw new UsageError('--limit-to-companies needs at least one company id');
  return list;
}

const accessOf = (user: { isClientAccessLimited: boolean; companyAccessList: readonly string[] }) =>
  user.isClientAccessLimited
    ? `limited to ${user.companyAccessList.length} compan${user.companyAccessList.length === 1 ? 'y' : 'ies'}`
    : 'all companies';
