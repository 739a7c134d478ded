import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest, populatedWorkspace, sessionKeyFor } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, adminHarness } from '../../../../test/helpers/harness.js';
import { acmeAndBeta } from '../../../../test/helpers/world.js';

/** A manual and a link install; Acme Co (ada), Beta (bob, cy), and multi in both Beta and Acme Co. */
async function world(h: Harness) {
  const populated = await populatedWorkspace(h);
  const install = async (body: object) =>
    (await adminRequest(h, 'POST', `/admin/workspaces/${populated.ws.workspaceId}/installs`, body)).json().id as string;
  const manual = await install({ type: 'manual', name: 'Docs' });
  const link = await install({ type: 'link', name: 'Site' });
  const w = await acmeAndBeta(h, populated);
  const cy = await w.betaClient('cy');
  const multi = await w.multiClient();
  return { ...w, manual, link, cy, multi };
}

for (const backend of BACKENDS) {
  describe(`app connections (contract §3) [${backend}]`, () => {
    test('a connection to clients of one company: membership derived, autoSizeEmbed true, answered in domainMetadata', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const post = (body: object) => h.as(w.ws.apiKey, { method: 'POST', url: `/v1/installs/${w.manual}/connections`, payload: body });
      const group = await post({ type: 'embed', content: '<iframe src="https://x.test"></iframe>', clientIds: [w.bob.id, w.cy.id] });
      assert.equal(group.statusCode, 200, group.body);
      const body = group.json();
      assert.deepEqual(
        { ...body, id: 'ID', createdAt: 'T', updatedAt: 'T' },
        {
          id: 'ID',
          object: 'appConnection',
          createdAt: 'T',
          updatedAt: 'T',
          type: 'embed',
          membershipType: 'group',
          clientIds: [w.bob.id, w.cy.id],
          companyId: w.beta.id,
          content: '<iframe src="https://x.test"></iframe>',
          installId: w.manual,
          domainMetadata: {
            autoSizeEmbed: true,
            companyId: w.beta.id,
            embedCode: '<iframe src="https://x.test"></iframe>',
            memberIDs: { [w.bob.id]: true, [w.cy.id]: true },
          },
        },
      );
      const one = (await post({ type: 'link', content: 'https://docs.test/a', clientIds: [w.ada.id], autoSizeEmbed: false })).json();
      assert.deepEqual(
        [one.membershipType, one.companyId, one.domainMetadata.embedLink, one.domainMetadata.autoSizeEmbed],
        ['individual', w.acme.id, 'https://docs.test/a', false],
      );
      const company = (await post({ type: 'link', content: 'https://docs.test/b', companyId: w.acme.id })).json();
      assert.deepEqual([company.membershipType, company.clientIds, company.domainMetadata.memberIDs], ['company', null, {}]);
      const chosen = (
        await post({ type: 'link', content: 'https://docs.test/c', clientIds: [w.multi.id], companyId: w.acme.id, membershipType: 'group' })
      ).json();
      assert.deepEqual([chosen.membershipType, chosen.companyId], ['group', w.acme.id], 'membershipType overrides; companyId chooses');
    });

    test('every input rule is a 400 naming its field', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const post = (installId: string, body: object) =>
        h.as(w.ws.apiKey, { method: 'POST', url: `/v1/installs/${installId}/connections`, payload: body });
      const problems = async (installId: string, body: object) => {
        const res = await post(installId, body);
        assert.equal(res.statusCode, 400, res.body);
        return res.json().data;
      };
      assert.deepEqual(await problems(w.link, { type: 'link', content: 'https://x.test', companyId: w.acme.id }), [
        { path: 'params.installId', message: 'is a link install: connections belong to manual installs only' },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'link', content: 'https://x.test' }), [
        { path: 'body.companyId', message: 'is required when no clients are given' },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'link', content: 'ftp://x.test', companyId: w.acme.id }), [
        { path: 'body.content', message: 'must be an http(s) URL for a link' },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'embed', content: 'x', clientIds: [w.ada.id, w.bob.id] }), [
        { path: 'body.clientIds.1', message: `is not in company ${w.acme.id}: all clients must belong to one company` },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'embed', content: 'x', clientIds: [w.multi.id] }), [
        { path: 'body.companyId', message: `is required to choose the company: ${w.multi.id} belong to several` },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'embed', content: 'x', clientIds: ['nope', w.bob.id] }), [
        { path: 'body.clientIds.0', message: 'is not a client of this workspace' },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'embed', content: 'x', companyId: 'nope' }), [
        { path: 'body.companyId', message: 'is not a company of this workspace' },
      ]);
      assert.deepEqual(await problems(w.manual, { type: 'embed', content: '' }), [
        { path: 'body.content', message: 'must NOT have fewer than 1 characters' },
      ]);
      const unknown = await post('3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', { type: 'link', content: 'https://x.test', companyId: w.acme.id });
      assert.deepEqual([unknown.statusCode, unknown.json().code], [404, 'not_found']);
      const list = (await h.as(w.ws.apiKey, { method: 'GET', url: `/v1/installs/${w.manual}/connections` })).json();
      assert.deepEqual(list.data, [], 'nothing written');
    });

    test('filters: clientId lists what the client sees (its own, its group’s, its company’s); companyId; a client session sees its own and may not write', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const post = async (body: object) => {
        h.clock.advance(1000); // one second apart: newest first is a real order
        return (await h.as(w.ws.apiKey, { method: 'POST', url: `/v1/installs/${w.manual}/connections`, payload: body })).json()
          .id as string;
      };
      const toBob = await post({ type: 'link', content: 'https://x.test/bob', clientIds: [w.bob.id] });
      const toGroup = await post({ type: 'link', content: 'https://x.test/group', clientIds: [w.bob.id, w.cy.id] });
      const toBeta = await post({ type: 'link', content: 'https://x.test/beta', companyId: w.beta.id });
      const toAcme = await post({ type: 'link', content: 'https://x.test/acme', companyId: w.acme.id });
      const ids = async (key: string, query = '') =>
        (await h.as(key, { method: 'GET', url: `/v1/installs/${w.manual}/connections${query}` }))
          .json()
          .data.map((c: { id: string }) => c.id);
      assert.deepEqual(await ids(w.ws.apiKey), [toAcme, toBeta, toGroup, toBob], 'newest first');
      assert.deepEqual(await ids(w.ws.apiKey, `?clientId=${w.bob.id}`), [toBeta, toGroup, toBob]);
      assert.deepEqual(await ids(w.ws.apiKey, `?clientId=${w.cy.id}`), [toBeta, toGroup]);
      assert.deepEqual(await ids(w.ws.apiKey, `?clientId=${w.multi.id}`), [toAcme, toBeta], 'both its companies');
      assert.deepEqual(await ids(w.ws.apiKey, `?companyId=${w.beta.id}`), [toBeta, toGroup, toBob]);
      const cySession = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.cy.id });
      assert.deepEqual(await ids(cySession), [toBeta, toGroup], 'a client session sees what it sees, whatever it asks');
      assert.deepEqual(await ids(cySession, `?clientId=${w.bob.id}`), [toBeta, toGroup]);
      const write = await h.as(cySession, {
        method: 'POST',
        url: `/v1/installs/${w.manual}/connections`,
        payload: { type: 'link', content: 'https://x.test', companyId: w.beta.id },
      });
      assert.equal(write.statusCode, 403);
      const other = await h.workspace('Other');
      assert.equal(
        (await h.as(other.apiKey, { method: 'GET', url: `/v1/installs/${w.manual}/connections` })).statusCode,
        404,
        'another workspace',
      );
    });
  });
}
