// Rule (issue 45 point 1: "staff see the clients they may see, search them, add one in a company and invite it, and
// edit its names"; tested: "a limited internal user sees only its companies' clients"). Fay, an admin, adds a client
// in Northwind (the company found by a server-side search), invites it (the invite e-mail is queued in the outbox),
// fixes its family name in place, and finds it by a search; a client without a company is a field error beside the
// company for Lin. Lin, limited to Northwind, sees Northwind's clients only, in the list and in a search, and a
// Contoso client's page is not found for her. At 320 px (Lin) and 1280 px (Fay), axe-clean, nothing from another
// origin. On both backends (one portal server each); pictured and axe-checked on the first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WAIT_MS } from './helpers/browser.js';
import { BACKENDS, type Backend } from './helpers/harness.js';
import {
  ADMIN_TOKEN,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInStaff,
  startPortal,
  reached,
  visit,
  rowsOf,
} from './helpers/portal-pages.js';

for (const [at, backend] of BACKENDS.entries()) {
  test(`staff list, search, add and invite the clients they may see (${backend})`, { timeout: 180_000 }, () =>
    staffClients(backend, at === 0),
  );
}

/** `shots`: screenshots and axe on each page (`arrived`, `checkPage`), on the first backend; on the second, the rule alone. */
async function staffClients(backend: Backend, shots: boolean) {
  const look = shots ? arrived : reached;
  const check = shots ? checkPage : async () => {};
  const portal = await startPortal({ backend });
  try {
    const ws = await newWorkspace(portal, 'Acme');
    const north = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Northwind' });
    const contoso = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Contoso' });
    await ws.call('POST', '/v1/clients', { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@northwind.test', companyId: north.id });
    const bob = await ws.call<{ id: string }>('POST', '/v1/clients', {
      givenName: 'Bob',
      familyName: 'Brown',
      email: 'bob@contoso.test',
      companyId: contoso.id,
    });

    // Fay, an admin, at 1280 px: both companies' clients.
    const full = await visit(portal, 1280);
    await signedInStaff(portal, ws, full, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
    const fp = full.page;
    await fp.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Clients' }).click();
    await look(full, 'staff-clients-1280', 'Clients');
    const table = fp.getByRole('table', { name: 'Clients, newest first' });
    await table.getByText('Contoso', { exact: true }).waitFor({ timeout: WAIT_MS });
    await table.getByText('Northwind', { exact: true }).waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await rowsOf(table), [
      'Bob Brown | bob@contoso.test | Not invited | Contoso',
      'Ada Lovelace | ada@northwind.test | Not invited | Northwind',
    ]);

    // New client in Northwind, found by a search of the companies.
    const panel = fp.getByRole('region', { name: 'New client' });
    await panel.getByLabel('Given name').fill('Grace');
    await panel.getByLabel('Family name').fill('Hoper');
    await panel.getByLabel('E-mail address').fill('grace@northwind.test');
    await panel.getByLabel('Find a company').fill('north');
    await panel.getByRole('button', { name: 'Find', exact: true }).click();
    await panel.getByRole('option', { name: 'Northwind' }).waitFor({ state: 'attached' });
    await panel.getByLabel('Company', { exact: true }).selectOption({ label: 'Northwind' });
    await panel.getByRole('button', { name: 'Add the client' }).click();
    await fp.getByRole('status').getByText('Grace Hoper was added.').waitFor();
    await table.getByRole('link', { name: 'Grace Hoper' }).waitFor();
    const created = await ws.call<{ data: { id: string; companyId: string; status: string }[] }>(
      'GET',
      '/v1/clients?email=grace@northwind.test',
    );
    assert.deepEqual(
      created.data.map((c) => [c.companyId, c.status]),
      [[north.id, 'notInvited']],
    );
    const graceId = created.data[0]?.id ?? '';

    // Her page: invite her (the e-mail queued), then fix her family name in place.
    await table.getByRole('link', { name: 'Grace Hoper' }).click();
    await look(full, 'staff-client-1280', 'Grace Hoper');
    await fp.getByRole('listitem').getByText('Northwind', { exact: true }).waitFor();
    await fp.getByRole('button', { name: 'Invite', exact: true }).click();
    await fp.getByRole('status').getByText('The invite was e-mailed to grace@northwind.test.').waitFor();
    await fp.getByRole('button', { name: 'Re-send invite' }).waitFor();
    const outbox = await portal.http<{ data: { to: string; text?: string }[] }>('GET', `/admin/workspaces/${ws.workspaceId}/outbox`, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    const invites = outbox.body.data.filter((mail) => mail.to === 'grace@northwind.test');
    assert.equal(invites.length, 1, JSON.stringify(outbox.body.data));
    assert.match(invites[0]?.text ?? '', /https?:\/\/\S+/);
    assert.equal((await ws.call<{ status: string }>('GET', `/v1/clients/${graceId}`)).status, 'invited');
    await fp.getByLabel('Family name').fill('');
    await fp.getByLabel('Family name').fill('Hopper');
    await fp.getByRole('button', { name: 'Save the names' }).click();
    await fp.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor();
    assert.equal((await ws.call<{ familyName: string }>('GET', `/v1/clients/${graceId}`)).familyName, 'Hopper');

    // A search, on the server: "hop" finds Grace only.
    await fp.getByRole('link', { name: 'All clients' }).click();
    await look(full, 'staff-clients-back-1280', 'Clients');
    await fp.getByLabel('Search by name or e-mail').fill('hop');
    await fp.getByRole('button', { name: 'Search', exact: true }).click();
    await fp.getByRole('button', { name: 'Clear the search' }).waitFor();
    // The list before the search stays until the search's answer replaces it: Ada's row leaves then.
    await table.getByRole('link', { name: 'Ada Lovelace' }).waitFor({ state: 'detached', timeout: WAIT_MS });
    await table.getByText('Northwind', { exact: true }).waitFor();
    assert.deepEqual(await rowsOf(table), ['Grace Hopper | grace@northwind.test | Invited | Northwind']);
    assert.ok(
      full.requests.some((url) => url.includes('/v1/clients?q=hop')),
      'the search is the server’s',
    );
    assertSameOrigin(portal, full);
    await full.context.close();

    // Lin, limited to Northwind, at 320 px: Northwind's clients only.
    const v = await visit(portal, 320);
    await signedInStaff(portal, ws, v, {
      email: 'lin@acme.test',
      givenName: 'Lin',
      familyName: 'Limited',
      companyAccessList: [north.id],
    });
    const { page } = v;
    await page.goto(`${ws.pages}/clients`);
    await look(v, 'staff-clients-320', 'Clients');
    const linTable = page.getByRole('table', { name: 'Clients, newest first' });
    await linTable.getByText('Northwind', { exact: true }).first().waitFor();
    assert.deepEqual(await rowsOf(linTable), [
      'Grace Hopper | grace@northwind.test | Invited | Northwind',
      'Ada Lovelace | ada@northwind.test | Not invited | Northwind',
    ]);
    await page.getByLabel('Search by name or e-mail').fill('b');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No client matches the search.').waitFor();
    assert.ok(!((await page.locator('main').textContent()) ?? '').includes('Bob'), 'nothing of Contoso’s client');

    // A new client without a company: the server's word beside the company.
    const linPanel = page.getByRole('region', { name: 'New client' });
    await linPanel.getByLabel('Given name').fill('Carl');
    await linPanel.getByLabel('Family name').fill('Mann');
    await linPanel.getByLabel('E-mail address').fill('carl@northwind.test');
    await linPanel.getByRole('button', { name: 'Add the client' }).click();
    const company = linPanel.getByLabel('Company', { exact: true });
    await page.waitForFunction(() => document.querySelector('select[aria-invalid="true"]') !== null);
    assert.equal(await company.getAttribute('aria-invalid'), 'true');
    await linPanel.getByText('Is required: you may only add clients to your companies.').waitFor();
    await check(v, 'staff-clients-error-320');

    // Contoso's client is not found for her.
    await page.goto(`${ws.pages}/clients/${bob.id}`);
    await look(v, 'staff-client-other-320', 'Client not found');
    assertSameOrigin(portal, v);
    await v.context.close();
  } finally {
    await portal.close();
  }
}
