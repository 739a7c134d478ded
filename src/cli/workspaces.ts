import { systemCaller } from '../lib/caller.js';
import { systemClock } from '../lib/clock.js';
import { validInput } from '../lib/validate.js';
import { readSecret } from '../db/migrate.js';
import { PageTokens } from '../db/paging.js';
import {
  createWorkspace,
  listWorkspaces,
  updateWorkspace,
  WorkspaceCreate,
  WorkspaceListQuery,
  WorkspaceUpdate,
} from '../modules/resources/workspaces/index.js';
import { type CommandGroup, PAGE_OPTIONS, UsageError, command, given, listQueryOf, requireOption } from './command.js';
import { printResult } from './output.js';

/** `--daily-quota`: text that is not a non-negative integer is a usage error. */
function dailyQuotaOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const quota = Number(text);
  if (!Number.isInteger(quota) || quota < 0) throw new UsageError('--daily-quota must be a non-negative integer');
  return quota;
}

export const workspacesGroup: CommandGroup = {
  list: command({
    usage: 'portal workspaces list [--limit N] [--next-token T]',
    options: { ...PAGE_OPTIONS },
    async run(values, { database, json }) {
      // The page the admin route takes (GET /admin/workspaces), checked by the same schema.
      const page = await listWorkspaces(
        database,
        validInput(WorkspaceListQuery, listQueryOf(values, {})),
        new PageTokens(await readSecret(database, 'paging')),
      );
      const lines = page.data.map((w) => `${w.id}  ${w.name}${w.sandbox ? '  (sandbox)' : ''}`);
      const more = page.nextToken ? `\nMore: --next-token ${page.nextToken}` : '';
      printResult(json, { ...page }, lines.length > 0 ? lines.join('\n') + more : 'No workspace.');
    },
  }),
  create: command({
    usage: 'portal workspaces create --name N [--daily-quota N] [--sandbox]',
    options: { name: { type: 'string' }, 'daily-quota': { type: 'string' }, sandbox: { type: 'boolean' } },
    async run(values, { database, json }) {
      const input = validInput(WorkspaceCreate, {
        name: requireOption(values, 'name'),
        ...given({ dailyQuota: dailyQuotaOption(values['daily-quota']), sandbox: values.sandbox === true ? true : undefined }),
      });
      const created = await createWorkspace(database, input, systemClock.now());
      printResult(
        json,
        { ...created },
        `Workspace ${created.workspaceId} created.\nWorkspace API key (shown only now): ${created.apiKey}\nKey id: ${created.apiKeyId}`,
      );
    },
  }),
  update: command({
    usage: 'portal workspaces update --workspace W [--name N] [--daily-quota N] [--staff-mfa required|optional] [--brand-color #rrggbb]',
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      'daily-quota': { type: 'string' },
      'staff-mfa': { type: 'string' },
      'brand-color': { type: 'string' },
    },
    async run(values, { database, json }) {
      const workspaceId = requireOption(values, 'workspace');
      const dailyQuota = dailyQuotaOption(values['daily-quota']);
      const staffMfa = values['staff-mfa'];
      if (staffMfa !== undefined && staffMfa !== 'required' && staffMfa !== 'optional')
        throw new UsageError('--staff-mfa must be required or optional');
      const brandColor = values['brand-color'];
      if (values.name === undefined && dailyQuota === undefined && staffMfa === undefined && brandColor === undefined)
        throw new UsageError('give --name, --daily-quota, --staff-mfa or --brand-color to change');
      const staffMfaRequired = staffMfa === undefined ? undefined : staffMfa === 'required';
      const input = validInput(WorkspaceUpdate, given({ name: values.name, dailyQuota, staffMfaRequired, brandColor }));
      // An unknown (or malformed) workspace id updates nothing: the service answers 404.
      const updated = await updateWorkspace(database, systemCaller(workspaceId, systemClock.now()), input);
      printResult(
        json,
        {
          workspaceId: updated.id,
          name: updated.name,
          dailyQuota: updated.dailyQuota,
          staffMfaRequired: updated.staffMfaRequired,
          ...(updated.brandColor === undefined ? {} : { brandColor: updated.brandColor }),
        },
        `Workspace ${updated.id}: name "${updated.name}", daily quota ${updated.dailyQuota}, TOTP ${updated.staffMfaRequired ? 'required' : 'optional'} for staff.`,
      );
    },
  }),
};
