import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { readSecret } from '../db/migrate.js';
import { PageTokens } from '../db/paging.js';
import { SecretBox } from '../lib/secret-box.js';
import { validInput } from '../lib/validate.js';
import { DeliveryListQuery, ReplayFailed, WebhookEndpointCreate } from '../modules/resources/webhooks/index.js';
import * as webhooks from '../modules/resources/webhooks/index.js';
import { type CommandGroup, PAGE_OPTIONS, UsageError, command, given, listQueryOf, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

async function settingsOf(database: Database): Promise<webhooks.WebhookSettings> {
  return { secrets: new SecretBox(await readSecret(database, 'webhooks')), allowPrivate: loadConfig().webhooksAllowPrivate };
}

const tokensOf = async (database: Database) => new PageTokens(await readSecret(database, 'paging'));
const endpointOption = { workspace: { type: 'string' }, endpoint: { type: 'string' } } as const;

/** `portal webhooks …`: the same operations as the admin surface's webhook routes. */
export const webhooksGroup: CommandGroup = {
  create: command({
    usage: 'portal webhooks create --workspace W --url U [--events client.created,…|*] [--description D]',
    options: { workspace: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input = validInput(WebhookEndpointCreate, {
        url: requireOption(values, 'url'),
        ...given({ eventTypes: values.events?.split(',').map((e) => e.trim()), description: values.description }),
      });
      const created = await webhooks.createEndpoint(database, caller, input, await settingsOf(database));
      printResult(json, created, `Webhook endpoint ${created.id} created. Its signing secret (shown only now):\n\n  ${created.secret}\n`);
    },
  }),
  list: command({
    usage: 'portal webhooks list --workspace W',
    options: { workspace: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const page = await webhooks.listEndpoints(database, caller, { limit: 1000 }, await tokensOf(database));
      const lines = page.data.map((e) => `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  ${e.eventTypes.join(',')}`);
      printResult(json, { ...page }, lines.join('\n') || 'No webhook endpoint.');
    },
  }),
  delete: command({
    usage: 'portal webhooks delete --workspace W --endpoint E',
    options: endpointOption,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const deleted = await webhooks.deleteEndpoint(database, caller, requireOption(values, 'endpoint'));
      printResult(json, deleted, `Webhook endpoint ${deleted.id} deleted.`);
    },
  }),
  enable: command({
    usage: 'portal webhooks enable --workspace W --endpoint E',
    options: endpointOption,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const endpoint = await webhooks.setEndpointEnabled(database, caller, requireOption(values, 'endpoint'), true);
      printResult(json, endpoint, `Webhook endpoint ${endpoint.id} enabled.`);
    },
  }),
  disable: command({
    usage: 'portal webhooks disable --workspace W --endpoint E',
    options: endpointOption,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const endpoint = await webhooks.setEndpointEnabled(database, caller, requireOption(values, 'endpoint'), false);
      printResult(json, endpoint, `Webhook endpoint ${endpoint.id} disabled.`);
    },
  }),
  'rotate-secret': command({
    usage: 'portal webhooks rotate-secret --workspace W --endpoint E',
    options: endpointOption,
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const rotated = await webhooks.rotateSecret(database, caller, requireOption(values, 'endpoint'), await settingsOf(database));
      printResult(
        json,
        rotated,
        `New signing secret (shown only now; the previous one also signs until ${rotated.previousSecretValidUntil}):\n\n  ${rotated.secret}\n`,
      );
    },
  }),
  deliveries: command({
    usage: 'portal webhooks deliveries --workspace W [--endpoint E] [--status pending|succeeded|failed] [--limit N] [--next-token T]',
    options: { ...endpointOption, status: { type: 'string' }, ...PAGE_OPTIONS },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const query = validInput(DeliveryListQuery, listQueryOf(values, { endpointId: values.endpoint, status: values.status }));
      const page = await webhooks.listDeliveries(database, caller, query, await tokensOf(database));
      const lines = page.data.map(
        (d) =>
          `${d.createdAt}  ${d.status.padEnd(9)}  ${d.attempts} attempt(s)  ${d.eventType}  ${d.id}${d.lastError ? `  ${d.lastError}` : ''}`,
      );
      printResult(json, { ...page }, lines.join('\n') || 'No delivery.');
    },
  }),
  replay: command({
    usage: 'portal webhooks replay --workspace W (--delivery D | --failed-since TIME)',
    options: { workspace: { type: 'string' }, delivery: { type: 'string' }, 'failed-since': { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const delivery = values.delivery;
      const since = values['failed-since'];
      if ((delivery === undefined) === (since === undefined)) throw new UsageError('give --delivery D or --failed-since TIME');
      const replayed =
        delivery !== undefined
          ? await webhooks.replayDelivery(database, caller, delivery)
          : await webhooks.replayFailedSince(database, caller, validInput(ReplayFailed, { failedSince: since }).failedSince);
      printResult(json, replayed, `${replayed.replayed} delivery(ies) queued again: a running server sends them.`);
    },
  }),
};
