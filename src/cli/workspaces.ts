import { readFileSync, statSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { systemCaller } from '../lib/caller.js';
import { errors } from '../lib/errors.js';
import { MAX_IMAGE_BYTES } from '../lib/images.js';
import { systemClock } from '../lib/clock.js';
import { validInput } from '../lib/validate.js';
import { readSecret } from '../db/migrate.js';
import { PageTokens } from '../db/paging.js';
import {
  createWorkspace,
  getWorkspace,
  listWorkspaces,
  logoOf,
  logoPath,
  logoUrls,
  removeLogo,
  setLogo,
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
    usage:
      'portal workspaces update --workspace W [--name N] [--daily-quota N] [--staff-mfa required|optional] [--brand-color #rrggbb] [--logo FILE | --remove-logo]',
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      'daily-quota': { type: 'string' },
      'staff-mfa': { type: 'string' },
      'brand-color': { type: 'string' },
      logo: { type: 'string' },
      'remove-logo': { type: 'boolean' },
    },
    async run(values, { database, json }) {
      const workspaceId = requireOption(values, 'workspace');
      const dailyQuota = dailyQuotaOption(values['daily-quota']);
      const staffMfa = values['staff-mfa'];
      if (staffMfa !== undefined && staffMfa !== 'required' && staffMfa !== 'optional')
        throw new UsageError('--staff-mfa must be required or optional');
      const brandColor = values['brand-color'];
      const removing = values['remove-logo'] === true;
      if (values.logo !== undefined && removing) throw new UsageError('give --logo or --remove-logo, not both');
      const staffMfaRequired = staffMfa === undefined ? undefined : staffMfa === 'required';
      const fields = given({ name: values.name, dailyQuota, staffMfaRequired, brandColor });
      if (Object.keys(fields).length === 0 && values.logo === undefined && !removing)
        throw new UsageError('give --name, --daily-quota, --staff-mfa, --brand-color, --logo or --remove-logo to change');
      // Everything given is checked before anything is written: the fields by the admin route's schema, the logo as the
      // route checks its body (PUT /admin/workspaces/{id}/logo).
      const input = Object.keys(fields).length > 0 ? validInput(WorkspaceUpdate, fields) : undefined;
      const logo = values.logo === undefined ? undefined : logoOf(readLogo(values.logo));
      // An unknown (or malformed) workspace id updates nothing: the service answers 404.
      const caller = systemCaller(workspaceId, systemClock.now());
      let updated = input ? await updateWorkspace(database, caller, input) : await getWorkspace(database, caller);
      if (logo) updated = await setLogo(database, caller, logo);
      else if (removing) updated = await removeLogo(database, caller);
      // The logo this command set or removed; else the one the workspace has.
      const { portalUrl } = loadConfig();
      const logoUrl = logo
        ? portalUrl + logoPath(updated.id, logo.hash)
        : removing
          ? undefined
          : (await logoUrls(database, portalUrl, [updated.id])).get(updated.id);
      printResult(
        json,
        {
          workspaceId: updated.id,
          name: updated.name,
          dailyQuota: updated.dailyQuota,
          staffMfaRequired: updated.staffMfaRequired,
          ...(updated.brandColor === undefined ? {} : { brandColor: updated.brandColor }),
          ...(logoUrl === undefined ? {} : { logoUrl }),
        },
        `Workspace ${updated.id}: name "${updated.name}", daily quota ${updated.dailyQuota}, TOTP ${updated.staffMfaRequired ? 'required' : 'optional'} for staff` +
          `${logoUrl === undefined ? ', no logo' : `, logo at ${logoUrl}`}.`,
      );
    },
  }),
};

/** `--logo FILE`'s bytes: a file that cannot be read, or larger than a logo may be, is refused before it is read whole. */
function readLogo(file: string): Buffer {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw errors.badRequest(`Cannot read ${file}: ${(error as Error).message}`, [{ path: '--logo', message: 'cannot be read' }]);
  }
  if (size > MAX_IMAGE_BYTES) throw errors.payloadTooLarge(MAX_IMAGE_BYTES);
  return readFileSync(file);
}
