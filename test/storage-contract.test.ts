// The storage contract (docs/ARCHITECTURE.md, "A module"), checked on the source: queries are built only in
// repositories; a repository's exported functions take `(db, access, …)` for reads and `(work, access, …)` for
// writes, but for the few that work for no caller (declared below, each with its reason); and every table is written
// by one module only — another module's data is changed through that module's face.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const MODULES = join(import.meta.dirname, '..', 'src', 'modules');

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
};

const WRITE = /\b(insertInto|updateTable|deleteFrom|mergeInto)\(\s*'([a-z_]+)/g;
const QUERY = /\.(insertInto|updateTable|deleteFrom|mergeInto|selectFrom)\(/;

function moduleFiles() {
  return readdirSync(MODULES).flatMap((module) =>
    readdirSync(join(MODULES, module))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => ({ module, file, text: readFileSync(join(MODULES, module, file), 'utf8') })),
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

test('each module says what kind it is, as docs/ARCHITECTURE.md lists it', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'ARCHITECTURE.md'), 'utf8').replace(/\s+/g, ' ');
  // The paragraph naming the four kinds, each kind's sentence up to the next kind.
  const paragraph = /\*\*Resources\*\*.*?the kind is said here/.exec(doc)?.[0] ?? '';
  const kinds: Record<string, string> = {
    resource: 'Resources',
    'shared component': 'shared component',
    workflow: 'Workflows',
    surface: 'Surfaces',
  };
  const parts = paragraph.split(/(?=\*\*(?:Resources|shared component|Workflows across modules|Surfaces)\*\*)/);
  for (const module of readdirSync(MODULES)) {
    const first = readFileSync(join(MODULES, module, 'index.ts'), 'utf8').split('\n')[0];
    const kind = /^\/\/ ([a-z-]+), a (resource|shared component|workflow|surface) \(docs\/ARCHITECTURE\.md, "A module"\)/.exec(first);
    assert.ok(kind && kind[1] === module, `${module}/index.ts says its kind: ${first}`);
    const listed = parts.find((part) => part.startsWith(`**${kinds[kind[2]]}`));
    assert.ok(listed?.includes(`\`${module}\``), `docs/ARCHITECTURE.md lists ${module} among the ${kind[2]}s`);
  }
});
