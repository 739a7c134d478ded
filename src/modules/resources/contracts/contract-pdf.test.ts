// Rule (issue 33, point 2): a signed contract downloads as a PDF (its fields with the values given, the signer, the
// time of signing, its audit trail) for whoever may read the contract, and nobody else; one not signed yet is a 409;
// each download is contractDownloaded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest, limitedUserSession, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Backend } from '../../../../test/helpers/harness.js';
import { JPEG_40x20 } from '../../../../test/helpers/images.js';
import { PDFTOTEXT_MISSING, pdfAnswerText, pdfImages, pdfText } from '../../../../test/helpers/pdf.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

const FIELDS = [
  { id: 'fee', type: 'text', inputType: 'variable', label: 'Fee' },
  { id: 'firm', type: 'text', inputType: 'fixed', value: 'Acme LLP', label: 'Firm' },
  { id: 'sig', type: 'signature', inputType: 'client', label: 'Signature' },
  { id: 'signedOn', type: 'date', inputType: 'client', label: 'Signed on' },
  { id: 'note', type: 'text', inputType: 'client', isOptional: true },
];

/** Acme Co (ada), Beta (bob); an NDA sent to ada with its fee, at noon; ada's session. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const w = await acmeAndBeta(await moduleHarness(t, backend));
  const nda = okJson(
    await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/contract-templates`, { name: 'Mutual NDA', fields: FIELDS }),
  );
  const contract = okJson(
    await w.call('POST', '/v1/contracts', { contractTemplateId: nda.id, clientId: w.ada.id, variableValues: { fee: '$2,500' } }),
  );
  const adaKey = await w.session({ clientId: w.ada.id });
  const sign = () =>
    w.call('POST', `/v1/contracts/${contract.id}/sign`, { values: { sig: 'Ada Lovelace', signedOn: '2026-11-28' } }, adaKey);
  const pdf = (key = w.ws.apiKey, query = '') => w.h.as(key, { method: 'GET', url: `/v1/contracts/${contract.id}/pdf${query}` });
  return { ...w, contract, adaKey, sign, pdf, fileName: `Mutual-NDA-${contract.id}.pdf` };
}

for (const backend of BACKENDS) {
  describe(`contract PDFs [${backend}]`, { skip: PDFTOTEXT_MISSING }, () => {
    test('not signed yet: a 409 saying so, and nothing recorded', async (t) => {
      const { pdf, adaKey, contract, audit } = await world(t, backend);
      for (const key of [undefined, adaKey]) {
        const res = await pdf(key);
        assert.equal(res.statusCode, 409);
        assert.deepEqual(res.json(), {
          code: 'conflict',
          message: `Contract ${contract.id} is not signed yet: its document can be downloaded once the client has signed it.`,
          data: null,
        });
      }
      assert.deepEqual(await audit('contractDownloaded'), []);
    });

    test('signed: the fields with their values, the signer, the time of signing, the audit trail', async (t) => {
      const { h, pdf, sign, fileName, adaKey } = await world(t, backend);
      h.clock.advance(90_000);
      okJson(await sign());
      h.clock.advance(60_000);
      const text = pdfAnswerText(await pdf(adaKey), fileName);
      for (const expected of [
        'Acme', // the workspace, in its band
        'Mutual NDA',
        'Signed by Ada L <ada@Acme.test> on',
        'Signer Ada L <ada@Acme.test> Acme Co',
        'Fee Text Sender $2,500',
        'Firm Text Template Acme LLP',
        'Signature Signature Signer Ada Lovelace',
        'Signed on Date Signer 2026-11-28',
        'note Text Signer (left empty)',
        'Audit trail',
        'contractRequested',
        'contractCompleted',
        'Client Ada L',
      ]) {
        assert.ok(text.includes(expected), `"${expected}" in: ${text}`);
      }
      // Times in UTC: sent at the test clock's noon, signed 90 s later.
      const sent = new Date((await h.as(adaKey, { method: 'GET', url: '/v1/contracts' })).json().data[0].shareDate);
      const utc = (ms: number) => new Date(ms).toISOString().slice(11, 19);
      assert.ok(text.includes(`Sent ${sent.getUTCDate()} `) && text.includes(`${utc(sent.getTime())} UTC`), text);
      assert.ok(text.includes(`${utc(sent.getTime() + 90_000)} UTC`), text);
      assert.ok(text.indexOf('contractRequested') < text.indexOf('contractCompleted'), 'the trail is oldest first');

      // The first download is in the next one's trail.
      const again = pdfAnswerText(await pdf(), fileName);
      assert.ok(again.includes('contractDownloaded'), again);

      // A preview (?disposition=inline): the same document, shown rather than saved.
      const shown = await pdf(undefined, '?disposition=inline');
      assert.deepEqual([shown.statusCode, shown.headers['content-disposition']], [200, `inline; filename="${fileName}"`]);
      assert.ok(pdfText(shown.rawPayload).includes('Mutual NDA'));
    });

    // Rule (issue 44, point 1): the workspace's logo beside its name in the band, as on invoices.
    test('the logo: drawn in the band beside the name', async (t) => {
      const { h, ws, pdf, sign, fileName } = await world(t, backend);
      okJson(await sign());
      const set = await h.app.inject({
        method: 'PUT',
        url: `/admin/workspaces/${ws.workspaceId}/logo`,
        headers: { authorization: `Bearer ${h.adminToken}` },
        payload: JPEG_40x20,
      });
      assert.equal(set.statusCode, 200, set.body);
      const res = await pdf();
      assert.ok(pdfAnswerText(res, fileName).includes('Acme Mutual NDA'), 'the name in the band, then the title');
      assert.deepEqual(
        pdfImages(res.rawPayload).map(({ page, type, width, height, encoding }) => [page, type, width, height, encoding]),
        [[1, 'image', 40, 20, 'jpeg']],
      );
    });

    test('who may download: the key, the contract’s client, staff of its company; others get a 404', async (t) => {
      const { h, ws, app, bob, beta, user, session, sign, pdf, fileName } = await world(t, backend);
      okJson(await sign());
      pdfAnswerText(await pdf(await session({ internalUserId: user.id })), fileName);
      const other = await pdf(await session({ clientId: bob.id }));
      assert.equal(other.statusCode, 404);
      assert.equal(other.json().code, 'not_found');
      const limited = await limitedUserSession(h, ws.workspaceId, app.apiKey, [beta.id], 'lim@acme.test');
      assert.equal((await pdf(limited.session)).statusCode, 404);
      const elsewhere = await populatedWorkspace(h, 'Elsewhere');
      assert.equal((await pdf(elsewhere.ws.apiKey)).statusCode, 404);
    });

    test('each download is contractDownloaded, about the contract, by who downloaded it', async (t) => {
      const { ada, adaKey, contract, sign, pdf, audit } = await world(t, backend);
      okJson(await sign());
      assert.equal((await pdf(adaKey)).statusCode, 200);
      const entries = await audit('contractDownloaded');
      assert.deepEqual(
        entries.map((e) => [e.ref, JSON.parse(e.data).status, e.actorId, e.eventDescription, e.context]),
        [
          [
            contract.id,
            'signed',
            ada.id,
            'Contract "Mutual NDA" downloaded as a PDF',
            { contractId: contract.id, contractTemplateId: contract.contractTemplateId, clientId: ada.id },
          ],
        ],
      );
    });
  });
}
