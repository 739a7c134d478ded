import { loadConfig } from '../config.js';
import { readSecret } from '../db/migrate.js';
import { PageTokens } from '../db/paging.js';
import { validInput } from '../lib/validate.js';
import { listOutbox, OutboxListQuery } from '../modules/resources/email-outbox/index.js';
import { type CommandGroup, PAGE_OPTIONS, command, listQueryOf, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const outboxGroup: CommandGroup = {
  list: command({
    usage: 'portal outbox list --workspace W [--status queued|sent|failed] [--limit N] [--next-token T]',
    options: { workspace: { type: 'string' }, status: { type: 'string' }, ...PAGE_OPTIONS },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      // The query the admin route takes (GET /admin/workspaces/{id}/outbox), checked by the same schema.
      const query = validInput(OutboxListQuery, listQueryOf(values, { status: values.status }));
      // Its bodies while this environment has no SMTP_URL, as the server's (the same environment runs both).
      const page = await listOutbox(database, caller, query, new PageTokens(await readSecret(database, 'paging')), loadConfig());
      const lines = page.data.map(
        (e) =>
          `${e.createdAt}  ${e.status.padEnd(6)}  ${e.attempts} attempt(s)  ${e.to}  ${e.subject}` +
          (e.text === undefined ? '' : `\n${e.text.replace(/^/gm, '    ').trimEnd()}\n`),
      );
      printResult(json, { ...page }, lines.length > 0 ? lines.join('\n') : 'The outbox is empty.');
    },
  }),
};
