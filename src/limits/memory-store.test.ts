import { harness } from '../../test/helpers/harness.js';
import { MemoryLimitStore } from './memory-store.js';
import { limitStoreContract } from './store-contract.test.js';

limitStoreContract('MemoryLimitStore', async (t) => {
  const h = await harness(t, 'sqlite');
  const store = new MemoryLimitStore(h.app.ctx.db);
  t.after(() => store.close());
  return { store, workspace: async () => (await h.workspace(`W ${Math.random()}`)).workspaceId };
});
