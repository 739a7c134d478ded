// Seeds clients for the benchmark: `node --import tsx bench/seed-clients.ts <workspaceId> <count>` with
// DATABASE_URL set. One transaction, through the same service code as the API (audit entries included),
// spread over 100 companies. Prints one JSON line: {"clientIds": [...], "companyIds": [...]}.
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { workspaceAccess } from '../src/lib/access.js';
import { systemActor } from '../src/modules/audit-log/audit-log.writer.js';
import { createClient } from '../src/modules/clients/clients.service.js';
import { createCompany } from '../src/modules/companies/companies.service.js';

const [workspaceId, countText] = process.argv.slice(2);
const count = Number(countText);
if (!workspaceId || !Number.isInteger(count) || count < 1 || count > 1_000_000) {
  process.stderr.write('usage: seed-clients.ts <workspaceId> <count 1..1000000>\n');
  process.exit(2);
}
const database = openDatabase(process.env.DATABASE_URL ?? '');
await migrateToLatest(database);
const access = workspaceAccess(workspaceId);
const start = Date.now();
const { clientIds, companyIds } = await database.db.transaction().execute(async (trx) => {
  const actor = systemActor(workspaceId, start);
  const companies: string[] = [];
  for (let i = 0; i < 100; i++) companies.push((await createCompany(trx, access, actor, { name: `Seed company ${i}` })).id);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const client = await createClient(
      trx,
      access,
      { ...actor, at: start + i },
      { email: `seed-${i}@example.com`, givenName: `Given${i}`, familyName: `Family${i}`, companyId: companies[i % companies.length] },
      { portalUrl: 'http://127.0.0.1' },
    );
    ids.push(client.id);
  }
  return { clientIds: ids, companyIds: companies };
});
await database.close();
// A sample of 100 client ids is enough for the scenarios.
process.stdout.write(`${JSON.stringify({ clientIds: clientIds.filter((_, i) => i % Math.ceil(count / 100) === 0), companyIds })}\n`);
