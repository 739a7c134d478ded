import { loadConfig } from '../config.js';
import { systemClock } from '../lib/clock.js';
import { seedDemo } from '../modules/workflows/demo/index.js';
import { command, requireWorkspace } from './command.js';
import { printResult } from './output.js';

/** `portal seed --workspace W`: demo data (contract §7), a command of one word like `migrate`. */
export const seedCommand = command({
  usage: 'portal seed --workspace W',
  options: { workspace: { type: 'string' } },
  async run(values, { database, json }) {
    const caller = await requireWorkspace(database, values);
    const made = await seedDemo(database, caller.access.workspaceId, systemClock.now(), loadConfig().portalUrl);
    const summary = Object.entries(made)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(', ');
    printResult(json, { ...made }, `Demo data added: ${summary}.`);
  },
});
