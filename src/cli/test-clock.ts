import { systemClock } from '../lib/clock.js';
import { validInput } from '../lib/validate.js';
import { sandboxProcessor } from '../modules/resources/billing/index.js';
import { TestClockAdvance, advanceTestClock, getTestClock } from '../modules/resources/test-clocks/index.js';
import { type CommandGroup, UsageError, command, given, requireWorkspace } from './command.js';
import { printResult } from './output.js';

const show = (clock: { workspaceId: string; time: string; aheadBySeconds: number }) =>
  `Workspace ${clock.workspaceId}: its test clock reads ${clock.time} (${clock.aheadBySeconds} s ahead of the server).`;

/** `portal test-clock`: a sandbox's clock, read and moved forward (as the admin surface's /test-clock routes). */
export const testClockGroup: CommandGroup = {
  show: command({
    usage: 'portal test-clock show --workspace W',
    options: { workspace: { type: 'string' } },
    async run(values, { database, json }) {
      const clock = await getTestClock(database, await requireWorkspace(database, values), systemClock.now());
      printResult(json, clock, show(clock));
    },
  }),
  advance: command({
    usage: 'portal test-clock advance --workspace W (--to TIME | --by-seconds N)',
    options: { workspace: { type: 'string' }, to: { type: 'string' }, 'by-seconds': { type: 'string' } },
    async run(values, { database, json }) {
      const by = values['by-seconds'];
      if ((values.to === undefined) === (by === undefined)) throw new UsageError('give one of --to and --by-seconds');
      if (by !== undefined && !/^[0-9]+$/.test(by)) throw new UsageError('--by-seconds must be a whole number of seconds');
      const input = validInput(TestClockAdvance, given({ to: values.to, bySeconds: by === undefined ? undefined : Number(by) }));
      const caller = await requireWorkspace(database, values);
      const clock = await advanceTestClock(database, sandboxProcessor, caller, input, systemClock.now());
      printResult(json, clock, show(clock));
    },
  }),
};
