// Rule (issue 45 point 4: "staff send a form to clients and read the responses; send a contract from a template,
// see its status and who signed, and open its PDF"; tested: "a limited internal user sees only its companies'
// items"). Fay, an admin, at 1280 px, sends the onboarding form to Ada (Northwind; found by a server-side search);
// Ada, signed in in another tab at 320 px, answers it; Fay reads her answers (each question with its answer, Ada
// named). Fay sends the services agreement from its template, first without its monthly fee (the server's word
// beside the field), then with its variables; Ada signs it; Fay sees it signed, by Ada, reads its details and
// downloads its PDF from the portal's own origin. Lin, limited to Contoso, at 320 px, sees neither the response nor
// the contract, in the lists, in a search of the clients, or by their addresses. Axe-clean, nothing from another
// origin; on both backends (a `portal serve` process on SQLite, then on a PostgreSQL database of its own).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { BACKENDS } from './helpers/harness.js';
import {
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  signedInStaff,
  startPortal,
  visit,
  land,
  rowsOf,
} from './helpers/portal-pages.js';

/** A description list's terms and their descriptions, in order. */
const factsOf = (list: Locator) =>
  list.evaluate((dl) =>
    [...dl.querySelectorAll('dt')].map((dt) => [dt.textContent ?? '', dt.nextElementSibling?.textContent ?? ''] as [string, string]),
  );

for (const [at, backend] of BACKENDS.entries()) {
  test(`staff send forms and contracts, read the answers and see who signed (${backend})`, { timeout: 180_000 }, () =>
    staffForms(backend, at === 0),
  );
}

async function staffForms(backend: (typeof BACKENDS)[number], shots: boolean) {
  const portal = await startPortal({ backend });
  try {
    const ws = await newWorkspace(portal, 'Acme');
    const north = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Northwind' });
    const contoso = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Contoso' });
    await ws.call('POST', '/v1/clients', { givenName: 'Bob', familyName: 'Brown', email: 'bob@contoso.test', companyId: contoso.id });
    const form = await ws.admin<{ id: string; formFieldIds: string[] }>('POST', '/forms', {
      name: 'Onboarding questionnaire',
      formFields: [
        { title: 'Legal name', type: 'shortAnswer', isRequired: true },
        { title: 'Team size', type: 'number' },
        { title: 'Anything else', type: 'longAnswer' },
      ],
    });
    const template = await ws.admin<{ id: string }>('POST', '/contract-templates', {
      name: 'Services agreement',
      fields: [
        { id: 'fee', type: 'text', inputType: 'variable', label: 'Monthly fee' },
        { id: 'start', type: 'date', inputType: 'variable', label: 'Start date' },
        { id: 'signature', type: 'signature', inputType: 'client', label: 'Your signature' },
      ],
    });

    // Ada, a Northwind client, signed in in her own tab (320 px); Fay, an admin, in hers (1280 px).
    const ada = await visit(portal, 320);
    const adaId = await signedInClient(ws, ada, {
      email: 'ada@northwind.test',
      givenName: 'Ada',
      familyName: 'Lovelace',
      companyId: north.id,
    });
    const full = await visit(portal, 1280);
    await signedInStaff(portal, ws, full, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
    const fp = full.page;

    // Fay sends the form to Ada, found by a search.
    await fp.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Forms' }).click();
    await land(full, shots, 'staff-forms-1280', 'Forms');
    const sendForm = fp.getByRole('region', { name: 'Send a form' });
    await sendForm.getByRole('radio', { name: /^Onboarding questionnaire/ }).check();
    await sendForm.getByLabel('Find a client by name or e-mail').fill('ada');
    await sendForm.getByRole('button', { name: 'Find', exact: true }).click();
    await sendForm.getByRole('button', { name: 'Clear the search' }).waitFor();
    const adaChoice = sendForm.getByRole('checkbox', { name: /^Ada Lovelace, Northwind/ });
    await adaChoice.check();
    assert.equal(await sendForm.getByRole('checkbox').count(), 1, 'the search found Ada only');
    assert.ok(
      full.requests.some((url) => url.includes('/v1/clients?q=ada')),
      'the search is the server’s',
    );
    await sendForm.getByRole('button', { name: 'Send the form' }).click();
    await sendForm.getByRole('status').getByText('Onboarding questionnaire was sent to 1 client.').waitFor();
    const waiting = fp.getByRole('table', { name: 'Waiting for answers, newest first' });
    await waiting.getByText('Ada Lovelace').waitFor();
    assert.deepEqual(
      (await rowsOf(waiting)).map((row) => row.split(' | ').slice(0, 2).join(' | ')),
      ['Onboarding questionnaire | Ada Lovelace'],
    );
    const asked = await ws.call<{ data: { id: string; clientId: string; companyId: string; status: string }[] }>(
      'GET',
      `/v1/form-responses?formId=${form.id}`,
    );
    assert.deepEqual(
      asked.data.map((r) => [r.clientId, r.companyId, r.status]),
      [[adaId, north.id, 'pending']],
    );
    const responseId = asked.data[0]?.id ?? '';
    if (shots) {
      await fp.setViewportSize({ width: 320, height: 800 });
      await checkPage(full, 'staff-forms-sent-320');
      await fp.setViewportSize({ width: 1280, height: 800 });
    }

    // Ada answers it in her portal.
    const ap = ada.page;
    await ap.goto(`${ws.pages}/forms`);
    await ap.getByRole('link', { name: 'Onboarding questionnaire' }).click();
    await ap.getByRole('heading', { level: 1, name: 'Onboarding questionnaire' }).waitFor();
    await ap.getByLabel('Legal name (required)').fill('Analytical Engines Ltd');
    await ap.getByLabel('Team size').fill('12');
    await ap.getByLabel('Anything else').fill('We start in January.');
    await ap.getByRole('button', { name: 'Send the answers' }).click();
    await ap.getByText('Thank you: your answers are sent.').waitFor();

    // Fay reads the answers: each question with its answer, Ada named.
    await fp.reload();
    const answered = fp.getByRole('table', { name: 'Answered, newest first' });
    await answered.getByText('Ada Lovelace').waitFor();
    await answered.getByRole('link', { name: 'Onboarding questionnaire' }).click();
    await land(full, shots, 'staff-form-response-1280', 'Onboarding questionnaire');
    await fp.locator('dl.facts').first().getByText('Ada Lovelace').waitFor();
    const facts = await factsOf(fp.locator('dl.facts').first());
    assert.deepEqual(
      facts.filter(([term]) => term !== 'Asked on'),
      [
        ['Asked of', 'Ada Lovelace'],
        ['Status', 'Answered'],
      ],
    );
    assert.deepEqual(await factsOf(fp.getByRole('region', { name: 'Answers' }).locator('dl')), [
      ['Legal name', 'Analytical Engines Ltd'],
      ['Team size', '12'],
      ['Anything else', 'We start in January.'],
    ]);
    const response = await ws.call<{ status: string; formFields: Record<string, { answer?: string }> }>(
      'GET',
      `/v1/form-responses/${responseId}`,
    );
    assert.equal(response.status, 'completed');
    assert.deepEqual(
      form.formFieldIds.map((id) => response.formFields[id]?.answer),
      ['Analytical Engines Ltd', '12', 'We start in January.'],
    );

    // Fay sends the services agreement to Ada: first without its fee (the server's word beside it), then with it.
    await fp.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Contracts' }).click();
    await land(full, shots, 'staff-contracts-1280', 'Contracts');
    const sendContract = fp.getByRole('region', { name: 'Send a contract' });
    await sendContract.getByRole('radio', { name: /^Services agreement/ }).check();
    await sendContract.getByLabel('Find a client by name or e-mail').fill('lovelace');
    await sendContract.getByRole('button', { name: 'Find', exact: true }).click();
    await sendContract.getByRole('button', { name: 'Clear the search' }).waitFor();
    await sendContract.getByRole('radio', { name: /^Ada Lovelace, Northwind/ }).check();
    await sendContract.getByLabel('Start date').fill('2027-01-04');
    await sendContract.getByRole('button', { name: 'Send the contract' }).click();
    const fee = sendContract.getByLabel('Monthly fee');
    await fp.waitForFunction(() => document.querySelector('input[aria-invalid="true"]') !== null);
    assert.equal(await fee.getAttribute('aria-invalid'), 'true');
    if (shots) await checkPage(full, 'staff-contract-error-1280');
    await fee.fill('1,200 EUR');
    await sendContract.getByRole('button', { name: 'Send the contract' }).click();
    await sendContract.getByRole('status').getByText('Services agreement was sent to Ada Lovelace, Northwind.').waitFor();
    const toSign = fp.getByRole('table', { name: 'Waiting for a signature, newest first' });
    await toSign.getByText('Ada Lovelace').waitFor();
    const sent = await ws.call<{ data: { id: string; clientId: string; status: string; fields: { id: string; value?: string }[] }[] }>(
      'GET',
      `/v1/contracts?contractTemplateId=${template.id}`,
    );
    assert.deepEqual(
      sent.data.map((c) => [c.clientId, c.status, c.fields.map((f) => f.value ?? null)]),
      [[adaId, 'pending', ['1,200 EUR', '2027-01-04', null]]],
    );
    const contractId = sent.data[0]?.id ?? '';

    // Ada signs it.
    await ap.goto(`${ws.pages}/contracts/${contractId}`);
    await ap.getByRole('heading', { level: 1, name: 'Services agreement' }).waitFor();
    await ap.getByLabel('Your signature').fill('Ada Lovelace');
    await ap.getByRole('button', { name: 'Sign the contract' }).click();
    await ap.getByText('Thank you: the contract is signed.').waitFor();
    if (shots) await checkPage(ada, 'staff-forms-client-signed-320');
    assertSameOrigin(portal, ada);
    await ada.context.close();

    // Fay sees it signed, by Ada; its details; its PDF from the portal's origin.
    await fp.reload();
    const signed = fp.getByRole('table', { name: 'Signed, newest first' });
    await signed.getByText('Ada Lovelace').waitFor();
    await signed.getByRole('link', { name: 'Services agreement' }).click();
    await land(full, shots, 'staff-contract-1280', 'Services agreement');
    await fp.locator('dl.facts').first().getByText('Ada Lovelace').first().waitFor();
    const contractFacts = new Map(await factsOf(fp.locator('dl.facts').first()));
    assert.equal(contractFacts.get('Sent to'), 'Ada Lovelace');
    assert.equal(contractFacts.get('Status'), 'Signed');
    assert.equal(contractFacts.get('Signed by'), 'Ada Lovelace');
    assert.ok(contractFacts.get('Signed'), 'when it was signed');
    const details = new Map(await factsOf(fp.getByRole('region', { name: 'Details' }).locator('dl')));
    assert.equal(details.get('Monthly fee'), '1,200 EUR');
    assert.equal(details.get('Your signature'), 'Ada Lovelace');
    const pdfLink = fp.getByRole('link', { name: 'Download the signed contract (PDF)' });
    const href = (await pdfLink.getAttribute('href')) ?? '';
    const pdf = await fp.request.get(new URL(href, fp.url()).toString());
    assert.equal(pdf.status(), 200);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    assert.ok(new URL(pdf.url()).origin === new URL(portal.server.base).origin, 'the PDF is the portal’s own');
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
    const download = fp.waitForEvent('download');
    await pdfLink.click();
    assert.match((await download).suggestedFilename(), /\.pdf$/);
    assertSameOrigin(portal, full);
    await full.context.close();

    // Lin, limited to Contoso, at 320 px: neither Ada's response nor her contract, nor Ada among the clients.
    const v = await visit(portal, 320);
    await signedInStaff(portal, ws, v, {
      email: 'lin@acme.test',
      givenName: 'Lin',
      familyName: 'Limited',
      companyAccessList: [contoso.id],
    });
    const { page } = v;
    await page.goto(`${ws.pages}/forms`);
    await land(v, shots, 'staff-forms-limited-320', 'Forms');
    await page.getByText('No form waits for an answer.').waitFor();
    await page.getByText('No form answered yet.').waitFor();
    const linSend = page.getByRole('region', { name: 'Send a form' });
    await linSend.getByRole('checkbox', { name: /^Bob Brown, Contoso/ }).waitFor();
    assert.equal(await linSend.getByRole('checkbox').count(), 1, 'Contoso’s client only');
    await linSend.getByLabel('Find a client by name or e-mail').fill('ada');
    await linSend.getByRole('button', { name: 'Find', exact: true }).click();
    await linSend.getByText('No client matches the search.').waitFor();
    await page.goto(`${ws.pages}/forms/${responseId}`);
    await land(v, shots, 'staff-form-other-320', 'Form not available');
    await page.goto(`${ws.pages}/contracts`);
    await land(v, shots, 'staff-contracts-limited-320', 'Contracts');
    await page.getByText('No contract waits for a signature.').waitFor();
    await page.getByText('No contract signed yet.').waitFor();
    await page.goto(`${ws.pages}/contracts/${contractId}`);
    await land(v, shots, 'staff-contract-other-320', 'Contract not available');
    assert.ok(!((await page.locator('main').textContent()) ?? '').includes('Ada'), 'nothing of Ada’s');
    const pdfAnswer = await page.request.get(`${ws.pages}/v1/contracts/${contractId}/pdf`);
    assert.equal(pdfAnswer.status(), 404, 'nor its PDF');
    assertSameOrigin(portal, v);
    await v.context.close();
  } finally {
    await portal.close();
  }
}
