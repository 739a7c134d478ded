import { validInput } from '../lib/validate.js';
import { createInternalUser, InternalUserCreate } from '../modules/internal-users/index.js';
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
          companyAccessList: values['limit-to-companies']
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        }),
      };
      if (input.companyAccessList?.length === 0) throw new UsageError('--limit-to-companies needs at least one company id');
      const caller = await requireWorkspace(database, values);
      const user = await createInternalUser(database, caller, validInput(InternalUserCreate, input));
      const access = user.isClientAccessLimited
        ? `limited to ${user.companyAccessList.length} compan${user.companyAccessList.length === 1 ? 'y' : 'ies'}`
        : 'all companies';
      printResult(
        json,
        { id: user.id },
        `Internal user ${user.id} created: ${user.givenName} ${user.familyName} <${user.email}>, ${user.role}, ${access}.`,
      );
    },
  }),
};
