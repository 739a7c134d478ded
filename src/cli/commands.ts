import { type CommandGroup, GLOBAL_OPTIONS, type Options } from './command.js';
import { customFieldsGroup } from './custom-fields.js';
import { installsGroup } from './installs.js';
import { internalUsersGroup } from './internal-users.js';
import { keysGroup } from './keys.js';
import { exportGroup } from './export.js';
import { importGroup } from './import.js';
import { catalogGroups } from './catalog.js';
import { invoicesGroup } from './invoices.js';
import { outboxGroup } from './outbox.js';
import { backupCommand } from './backup.js';
import { seedCommand } from './seed.js';
import { webhooksGroup } from './webhooks.js';
import { sessionsGroup } from './sessions.js';
import { qaGroup } from './qa.js';
import { taskTemplatesGroup } from './tasks.js';
import { formsGroup } from './forms.js';
import { contractTemplatesGroup } from './contracts.js';
import { workspacesGroup } from './workspaces.js';
import { testClockGroup } from './test-clock.js';

/** The command groups that work on the database (migrated first), by name. */
export const GROUPS: Record<string, CommandGroup> = {
  workspaces: workspacesGroup,
  keys: keysGroup,
  'internal-users': internalUsersGroup,
  'custom-fields': customFieldsGroup,
  installs: installsGroup,
  sessions: sessionsGroup,
  qa: qaGroup,
  outbox: outboxGroup,
  webhooks: webhooksGroup,
  invoices: invoicesGroup,
  import: importGroup,
  export: exportGroup,
  ...catalogGroups,
  'task-templates': taskTemplatesGroup,
  forms: formsGroup,
  'contract-templates': contractTemplatesGroup,
  'test-clock': testClockGroup,
};

/**
 * Only to find the command words wherever the options are: every declared option, not strict (an
 * option some command takes must not swallow its value as a word). Each command's own parse decides.
 */
export const ANY_OPTION: Options = Object.assign(
  {},
  ...Object.values(GROUPS).flatMap((group) => Object.values(group).map((c) => c.options)),
  GLOBAL_OPTIONS,
);

export { backupCommand, seedCommand };
