import { loadConfig } from '../config.js';
import { readSecret } from '../db/migrate.js';
import { PageTokens } from '../db/paging.js';
import { validInput } from '../lib/validate.js';
import {
  QaAgentTokenCreate,
  QaImpersonationTokenCreate,
  QaPrincipalCreate,
  QaPrincipalListQuery,
  createQaPrincipal,
  deleteQaPrincipal,
  listQaPrincipals,
  mintAgentToken,
  mintImpersonationToken,
} from '../modules/surfaces/qa/index.js';
import { type CommandGroup, PAGE_OPTIONS, UsageError, command, given, listQueryOf, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';
import { sessionBaseUrl } from './sessions.js';

/** `portal qa …`: the QA surface of the admin API (/admin/workspaces/{id}/qa/…) on the command line. */
export const qaGroup: CommandGroup = {
  list: command({
    usage: 'portal qa list --workspace W [--limit N] [--next-token T]',
    options: { workspace: { type: 'string' }, ...PAGE_OPTIONS },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const query = validInput(QaPrincipalListQuery, listQueryOf(values, {}));
      const page = await listQaPrincipals(database, caller, query, new PageTokens(await readSecret(database, 'paging')));
      const lines = page.data.map((p) => `${p.id}  ${p.kind.padEnd(12)}  ${p.givenName} ${p.familyName} <${p.email}>`);
      printResult(json, { ...page }, lines.length > 0 ? lines.join('\n') : 'No QA principals.');
    },
  }),
  create: command({
    usage: 'portal qa create --workspace W (--client C | --internal-user U)',
    options: { workspace: { type: 'string' }, client: { type: 'string' }, 'internal-user': { type: 'string' } },
    async run(values, { database, json }) {
      if ((values.client === undefined) === (values['internal-user'] === undefined))
        throw new UsageError('give exactly one of --client and --internal-user');
      const input = validInput(QaPrincipalCreate, given({ clientId: values.client, internalUserId: values['internal-user'] }));
      const principal = await createQaPrincipal(database, await requireWorkspace(database, values), input);
      printResult(json, { ...principal }, `QA principal ${principal.id} (${principal.kind} ${principal.email}) created.`);
    },
  }),
  delete: command({
    usage: 'portal qa delete --workspace W --principal P',
    options: { workspace: { type: 'string' }, principal: { type: 'string' } },
    async run(values, { database, json }) {
      const id = requireOption(values, 'principal');
      await deleteQaPrincipal(database, await requireWorkspace(database, values), id);
      printResult(json, { id, object: 'qaPrincipal', deleted: true }, `QA principal ${id} removed; its sessions revoked.`);
    },
  }),
  token: command({
    usage: 'portal qa token --workspace W --principal P --api-key KEY [--company X] [--base-url URL]',
    options: {
      workspace: { type: 'string' },
      principal: { type: 'string' },
      'api-key': { type: 'string' },
      company: { type: 'string' },
      'base-url': { type: 'string' },
    },
    async run(values, { database, json }) {
      const id = requireOption(values, 'principal');
      const input = validInput(QaImpersonationTokenCreate, {
        apiKey: requireOption(values, 'api-key'),
        ...given({ companyId: values.company }),
      });
      const caller = await requireWorkspace(database, values);
      const baseUrl = await sessionBaseUrl(database, values['base-url']);
      const minted = await mintImpersonationToken(database, caller, id, input, {
        lifetimeSeconds: loadConfig().sessionLifetimeSeconds,
        baseUrl,
      });
      const expires = new Date(minted.expiresAt * 1000).toISOString();
      printResult(
        json,
        { ...minted },
        `Session ${minted.tokenId} for QA principal ${id} (until ${expires}); token for the app:\n${minted.token}`,
      );
    },
  }),
  'agent-token': command({
    usage: 'portal qa agent-token --workspace W --api-key-id K [--lifetime SECONDS]',
    options: { workspace: { type: 'string' }, 'api-key-id': { type: 'string' }, lifetime: { type: 'string' } },
    async run(values, { database, json }) {
      const input = validInput(QaAgentTokenCreate, {
        apiKeyId: requireOption(values, 'api-key-id'),
        ...given({ lifetimeSeconds: values.lifetime === undefined ? undefined : Number(values.lifetime) }),
      });
      const minted = await mintAgentToken(database, await requireWorkspace(database, values), input);
      const expires = new Date(minted.tokenExpiresAt * 1000).toISOString();
      printResult(json, { ...minted }, `Agent bearer token for key ${minted.apiKeyId} (until ${expires}):\n${minted.token}`);
    },
  }),
};
