// Rule (issue 43, point 4): a folder's delete (single or in a batch) checks it is empty and deletes it in one
// transaction, and a creation or move into a folder holds the folder until it commits: a file put in a folder while
// the folder is deleted is either kept with its folder (the delete a 400, "Folder is not empty") or never made (a 400
// naming body.path), never left behind in a folder that is gone. Likewise a folder renamed: what is created in it
// meanwhile moves with it, or is refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, type Harness } from '../../../../test/helpers/harness.js';
import { type Method, acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

/** Rounds of one race each: enough that both orders, and the interleavings between, come up on either backend. */
const ROUNDS = 24;

async function world(h: Harness) {
  const w = await acmeAndBeta(h);
  const ok = async (method: Method, url: string, payload?: object) => okJson(await w.call(method, url, payload), `${method} ${url}`);
  const channel = await ok('POST', '/v1/channels/files', { membershipType: 'individual', clientId: w.ada.id });
  /** Every file object of the channel, by path. */
  const all = async () => {
    const found: { id: string; path: string; object: string }[] = [];
    let nextToken: string | undefined;
    do {
      const page = await ok('GET', `/v1/files?channelId=${channel.id}&limit=100${nextToken ? `&nextToken=${nextToken}` : ''}`);
      found.push(...page.data);
      nextToken = page.nextToken ?? undefined;
    } while (nextToken);
    return found.sort((a, b) => (a.path < b.path ? -1 : 1));
  };
  return { ...w, ok, channel, all };
}

/** A path whose folder is not in the channel: an orphan. */
const orphans = (objects: { path: string; object: string }[]) => {
  const folders = new Set(objects.filter((o) => o.object === 'folder').map((o) => o.path));
  return objects.filter((o) => o.path.includes('/') && !folders.has(o.path.slice(0, o.path.lastIndexOf('/')))).map((o) => o.path);
};

for (const backend of BACKENDS) {
  describe(`files: a folder deleted or renamed while something is put in it [${backend}]`, () => {
    for (const how of ['DELETE /v1/files/{id}', 'POST /v1/files/batch-delete'] as const) {
      test(`${how} against a file created in the folder, and a file moved into it, at once: both kept, or neither; nothing orphaned`, async (t) => {
        const h = await moduleHarness(t, backend);
        const w = await world(h);
        const outcomes = new Set<string>();
        for (let round = 0; round < ROUNDS; round++) {
          const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.channel.id, path: `F${round}` });
          const loose = await w.ok('POST', '/v1/files/file', { channelId: w.channel.id, path: `loose${round}` });
          const remove = () =>
            how === 'DELETE /v1/files/{id}'
              ? w.call('DELETE', `/v1/files/${folder.id}`)
              : w.call('POST', '/v1/files/batch-delete', { ids: [folder.id] });
          const create = () => w.call('POST', '/v1/files/file', { channelId: w.channel.id, path: `F${round}/new` });
          const move = () => w.call('PATCH', `/v1/files/${loose.id}`, { path: `F${round}/moved` });
          // Which request starts first turns with the round.
          const [removed, created, moved] =
            round % 2 === 0
              ? await Promise.all([remove(), create(), move()])
              : await Promise.all([create(), move(), remove()]).then(([c, m, r]) => [r, c, m]);

          const refusal = (res: typeof created) => [res.statusCode, res.json().code, res.json().data?.[0]?.path];
          if (removed.statusCode === 200) {
            // The folder went: so did nothing else, and neither write happened.
            assert.deepEqual(refusal(created), [400, 'bad_request', 'body.path'], created.body);
            assert.deepEqual(refusal(moved), [400, 'bad_request', 'body.path'], moved.body);
          } else {
            assert.equal(removed.statusCode, 400, removed.body);
            assert.match(removed.json().message, /^Folder is not empty/, removed.body);
            assert.ok(created.statusCode === 200 || moved.statusCode === 200, `${created.body} ${moved.body}`);
          }
          outcomes.add(`${removed.statusCode}/${created.statusCode}/${moved.statusCode}`);
          const objects = await w.all();
          assert.deepEqual(orphans(objects), [], `round ${round}: ${removed.body} ${created.body} ${moved.body}`);
          const paths = objects.map((o) => o.path).filter((p) => p === `F${round}` || p.startsWith(`F${round}/`));
          assert.deepEqual(
            paths,
            removed.statusCode === 200
              ? []
              : [
                  `F${round}`,
                  ...(moved.statusCode === 200 ? [`F${round}/moved`] : []),
                  ...(created.statusCode === 200 ? [`F${round}/new`] : []),
                ],
          );
        }
        t.diagnostic(`outcomes (delete/create/move): ${[...outcomes].sort().join(', ')}`);
      });
    }

    test('a folder renamed while a file is created in it: the file moves with it, or is refused; nothing orphaned', async (t) => {
      const h = await moduleHarness(t, backend);
      const w = await world(h);
      const outcomes = new Set<string>();
      for (let round = 0; round < ROUNDS; round++) {
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.channel.id, path: `G${round}` });
        const rename = () => w.call('PATCH', `/v1/files/${folder.id}`, { path: `H${round}` });
        const create = () => w.call('POST', '/v1/files/file', { channelId: w.channel.id, path: `G${round}/new` });
        const [renamed, created] =
          round % 2 === 0 ? await Promise.all([rename(), create()]) : await Promise.all([create(), rename()]).then(([c, r]) => [r, c]);
        assert.equal(renamed.statusCode, 200, renamed.body);
        if (created.statusCode !== 200)
          assert.deepEqual([created.statusCode, created.json().data?.[0]?.path], [400, 'body.path'], created.body);
        outcomes.add(`${renamed.statusCode}/${created.statusCode}`);
        const objects = await w.all();
        assert.deepEqual(orphans(objects), [], `round ${round}: ${renamed.body} ${created.body}`);
        assert.deepEqual(
          objects.map((o) => o.path).filter((p) => /^[GH]\d+(\/|$)/.test(p) && p.slice(1).split('/')[0] === String(round)),
          [`H${round}`, ...(created.statusCode === 200 ? [`H${round}/new`] : [])],
        );
      }
      t.diagnostic(`outcomes (rename/create): ${[...outcomes].sort().join(', ')}`);
    });
  });
}
