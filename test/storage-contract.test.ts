// The storage contract (docs/ARCHITECTURE.md, "A module"), checked on the source: queries are built only in
// repositories; a repository's exported functions take `(db, access, …)` for reads and `(work, access, …)` for
// writes, but for the few that work for no caller (declared below, each with its reason); and every table is written
// by one module only — another module's data is changed through that module's face.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const MODULES = join('src', 'modules'); // from the repository, where the tests run (bundled too)

/** The folders of src/modules/, one per kind of module (docs/ARCHITECTURE.md, "A module"), and how that paragraph names each. */
const KINDS: Record<string, string> = {
  resources: 'Resources',
  components: 'shared component',
  workflows: 'Workflows across modules',
  surfaces: 'Surfaces',
};

/** Every module, by its own folder's name (as NO_ACCESS names them), with the folder it is in. */
const moduleFolders = () =>
  readdirSync(MODULES).flatMap((kind) => readdirSync(join(MODULES, kind)).map((module) => ({ module, dir: join(MODULES, kind, module) })));

/** Exported repository functions that take no access, and why: each works for no caller, or is not a query. */
const NO_ACCESS: Record<string, string> = {
  // Not queries: a row's mapping and the columns a row shares.
  'billing/invoices.repository.ts billedTo': 'a mapping',
  'billing/invoices.repository.ts toPayment': 'a mapping',
  'credentials/api-keys.repository.ts credentialColumns': 'a mapping',
  // The loops' claims, leases and deliveries: work for no caller, across workspaces.
  'billing/payments.repository.ts defaultPaymentMethod': 'the biller charges for no caller',
  'billing/payments.repository.ts claimDueCharge': 'a loop’s claim',
  'billing/payments.repository.ts nextDueOf': 'a loop’s schedule',
  'billing/payments.repository.ts claimStaleRefund': 'a loop’s claim',
  'billing/payments.repository.ts advancedClocks': 'a loop’s schedule',
  'billing/subscriptions.repository.ts claimMostOverdue': 'a loop’s claim',
  'email-outbox/email-outbox.repository.ts claimDueEmails': 'a loop’s claim',
  'email-outbox/email-outbox.repository.ts markEmailSent': 'a loop’s delivery',
  'email-outbox/email-outbox.repository.ts markEmailAttemptFailed': 'a loop’s delivery',
  'webhooks/webhooks.repository.ts endpointsToCatchUp': 'a loop’s schedule',
  'webhooks/webhooks.repository.ts claimCatchUp': 'a loop’s claim',
  'webhooks/webhooks.repository.ts workspacesWithEndpoints': 'a loop’s schedule',
  'webhooks/webhooks.repository.ts enabledEndpointsOf': 'a loop’s delivery',
  'webhooks/webhooks.repository.ts insertDeliveries': 'a loop’s delivery',
  'webhooks/webhooks.repository.ts claimDueDeliveries': 'a loop’s claim',
  'webhooks/webhooks.repository.ts endpointRow': 'a loop’s delivery',
  'webhooks/webhooks.repository.ts failDelivery': 'a loop’s delivery',
  'webhooks/webhooks.repository.ts recordAttempt': 'a loop’s delivery',
  'webhooks/webhooks.repository.ts changeEndpointInWork': 'a loop disables a failing endpoint',
  'files/files.repository.ts existingFileIds': 'the content sweep, across workspaces',
  // Finding the caller: the credential names its workspace, which is not known before.
  'credentials/api-keys.repository.ts findActiveKeyByLookup': 'finds the caller',
  'credentials/sessions.repository.ts findSessionForRequest': 'finds the caller',
  'credentials/tokens.repository.ts findTokenByHash': 'finds the caller',
  'operator-sessions/operator-session.repository.ts isRevoked': 'the operator, outside any workspace',
  'operator-sessions/operator-session.repository.ts revoke': 'the operator, outside any workspace',
  'notifications/notifications.repository.ts findNotificationWorkspace': 'an e-mail’s link finds its workspace',
  'notifications/notifications.repository.ts findPreference': 'e-mail delivery, for no caller',
  // Workspaces themselves: created, listed and numbered by the operator, outside any one of them.
  'workspaces/workspaces.repository.ts insertWorkspace': 'creates a workspace',
  'workspaces/workspaces.repository.ts lockFirstWorkspace': 'creates the first workspace',
  'workspaces/workspaces.repository.ts findClock': 'the workspace’s own clock',
  'workspaces/workspaces.repository.ts firstWorkspaceIds': 'the operator, across workspaces',
  'workspaces/workspaces.repository.ts countWorkspaces': 'the operator, across workspaces',
  'workspaces/workspaces.repository.ts listWorkspaces': 'the operator, across workspaces',
  'workspaces/workspaces.repository.ts logoHashes': 'the operator, across workspaces',
};

const WRITE = /\b(insertInto|updateTable|deleteFrom|mergeInto)\(\s*'([a-z_]+)/g;
const QUERY = /\.(insertInto|updateTable|deleteFrom|mergeInto|selectFrom)\(/;

function moduleFiles() {
  return moduleFolders().flatMap(({ module, dir }) =>
    readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => ({ module, file, text: readFileSync(join(dir, file), 'utf8') })),
  );
}

test('queries are built only in repositories', () => {
  const outside = moduleFiles()
    .filter(({ file, text }) => !file.endsWith('.repository.ts') && QUERY.test(text))
    .map(({ module, file }) => `${module}/${file}`);
  assert.deepEqual(outside, []);
});

test('a repository’s exported functions take (db, access, …) or (work, access, …), but the declared few', () => {
  const found: string[] = [];
  for (const { module, file, text } of moduleFiles().filter(({ file }) => file.endsWith('.repository.ts'))) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isFunctionDeclaration(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const [first, second] = statement.parameters.map((p) => p.name.getText(source));
      if ((first === 'db' || first === 'work') && second === 'access') continue;
      found.push(`${module}/${file} ${statement.name?.text}`);
    }
  }
  assert.deepEqual(found.sort(), Object.keys(NO_ACCESS).sort());
});

test('every table is written by one module only', () => {
  const writers = new Map<string, Set<string>>();
  for (const { module, text } of moduleFiles())
    for (const [, , table] of text.matchAll(WRITE)) writers.set(table, (writers.get(table) ?? new Set()).add(module));
  const shared = [...writers].filter(([, modules]) => modules.size > 1).map(([table, modules]) => `${table}: ${[...modules].join(', ')}`);
  assert.deepEqual(shared, []);
  assert.ok(writers.size >= 50, `${writers.size} tables written`);
});

test('the folders of each kind under src/modules/ are the modules docs/ARCHITECTURE.md lists as that kind', () => {
  const doc = readFileSync(join('docs', 'ARCHITECTURE.md'), 'utf8').replace(/\s+/g, ' ');
  // The paragraph naming the four kinds, up to its sentence on the folders; each kind's sentences up to the next kind.
  const paragraph = /\*\*Resources\*\*.*?Each kind is a folder/.exec(doc)?.[0] ?? '';
  assert.ok(paragraph, 'docs/ARCHITECTURE.md has the paragraph of the four kinds');
  const parts = paragraph.split(/(?=\*\*(?:Resources|shared component|Workflows across modules|Surfaces)\*\*)/);
  assert.deepEqual(readdirSync(MODULES).sort(), Object.keys(KINDS).sort(), 'src/modules/ holds one folder per kind, nothing else');
  for (const [kind, heading] of Object.entries(KINDS)) {
    const part = parts.find((p) => p.startsWith(`**${heading}**`)) ?? '';
    // Every name in backquotes in a kind's sentences is a module of that kind.
    const listed = [...part.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
    assert.deepEqual(readdirSync(join(MODULES, kind)).sort(), listed, `src/modules/${kind}/ holds the modules listed as ${heading}`);
  }
  const names = moduleFolders().map(({ module }) => module);
  assert.equal(new Set(names).size, names.length, 'a module name is used once, whatever the kind (the module graph names modules so)');
});
