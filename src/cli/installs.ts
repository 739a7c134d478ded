import { validInput } from '../lib/validate.js';
import { createInstall, InstallCreate, publishInstall } from '../modules/resources/installs/index.js';
import { type CommandGroup, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const installsGroup: CommandGroup = {
  create: command({
    usage: 'portal installs create --workspace W --type T --name N [--app-id A] [--draft] [--url U]',
    options: {
      workspace: { type: 'string' },
      type: { type: 'string' },
      name: { type: 'string' },
      'app-id': { type: 'string' },
      draft: { type: 'boolean' },
      url: { type: 'string' },
    },
    async run(values, { database, json }) {
      // The body the admin route takes (POST /admin/workspaces/{id}/installs), checked by the same schema.
      const input = validInput(InstallCreate, {
        type: requireOption(values, 'type'),
        name: requireOption(values, 'name'),
        ...given({ appId: values['app-id'], draft: values.draft, url: values.url }),
      });
      const created = await createInstall(database, await requireWorkspace(database, values), input);
      printResult(json, created, `Install ${created.id} created${input.draft ? ' (a draft: publish it to show it to clients)' : ''}.`);
    },
  }),
  publish: command({
    usage: 'portal installs publish --workspace W --install I',
    options: { workspace: { type: 'string' }, install: { type: 'string' } },
    async run(values, { database, json }) {
      const published = await publishInstall(database, await requireWorkspace(database, values), requireOption(values, 'install'));
      printResult(json, published, `Install ${published.id} published.`);
    },
  }),
};
