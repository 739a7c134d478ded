// Rule (issue 33, point 5): files, folders and links are renamed and moved (a folder's contents follow, in one
// transaction; never into itself), deleted several at once, and downloaded as one zip archive streamed from the
// store; every item is checked for the caller (one it cannot see refuses the whole batch, naming the item).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, request } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import { fromBufferPromise } from 'yauzl';
import { auditEntries, limitedUserSession, populatedWorkspace, sessionKeyFor } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, adminHarness } from '../../../../test/helpers/harness.js';
import { FILE_STORES } from '../../../../test/helpers/s3.js';
import { asStream } from './file-store.js';
import { type Method, acmeAndBeta, okJson } from '../../../../test/helpers/world.js';

const UNKNOWN = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';

async function world(h: Harness) {
  const w = await acmeAndBeta(h);
  const ok = async (method: Method, url: string, payload?: object, key = w.ws.apiKey) => {
    h.clock.advance(1000);
    return okJson(await w.call(method, url, payload, key), `${method} ${url}`);
  };
  const adas = await ok('POST', '/v1/channels/files', { membershipType: 'individual', clientId: w.ada.id });
  const betas = await ok('POST', '/v1/channels/files', { membershipType: 'company', companyId: w.beta.id });
  /** A file, folder or link in ada's channel (a file with `content` uploaded). */
  const make = async (
    type: 'file' | 'folder' | 'link',
    path: string,
    extra: { content?: string | Buffer; linkUrl?: string; channelId?: string } = {},
  ) => {
    const made = await ok('POST', `/v1/files/${type}`, {
      channelId: extra.channelId ?? adas.id,
      path,
      ...(extra.linkUrl ? { linkUrl: extra.linkUrl } : {}),
    });
    if (extra.content !== undefined) {
      const url = new URL(made.uploadUrl);
      const put = await h.app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: extra.content });
      assert.equal(put.statusCode, 200, put.body);
    }
    return made as { id: string; path: string; updatedAt: string; uploadUrl: string };
  };
  const paths = async (channelId = adas.id) =>
    ((await ok('GET', `/v1/files?channelId=${channelId}&limit=100`)).data as { path: string }[]).map((f) => f.path).sort();
  return { ...w, ok, adas, betas, make, paths };
}

/** Every entry of a zip archive: its name and its bytes (CRCs checked by the reader). */
async function unzip(bytes: Buffer): Promise<[string, string][]> {
  const zip = await fromBufferPromise(bytes);
  const entries: [string, string][] = [];
  for await (const entry of zip.eachEntry()) {
    entries.push([entry.fileName, entry.fileName.endsWith('/') ? '' : (await buffer(await zip.openReadStreamPromise(entry))).toString()]);
  }
  return entries;
}

/** A refusal of this status naming exactly these problems' paths. */
function assertRefused(res: { statusCode: number; body: string; json(): { data: { path: string }[] } }, status: number, paths: string[]) {
  assert.equal(res.statusCode, status, res.body);
  assert.deepEqual(
    res.json().data.map((problem) => problem.path),
    paths,
    res.body,
  );
}

const events = async (h: Harness, workspaceId: string, type: RegExp) =>
  (await auditEntries(h, workspaceId)).filter((e) => type.test(e.event_type));

for (const backend of BACKENDS) {
  for (const store of FILE_STORES) {
    describe(`files: rename, move, batch delete and zip archive [${backend}, ${store} store]`, () => {
      test('rename and move: a folder’s contents follow; never into itself; its folders must exist; a path taken is a 409', async (t) => {
        const h = await adminHarness(t, backend, { fileStore: store });
        const w = await world(h);
        const a = await w.make('folder', 'A');
        const b = await w.make('folder', 'A/B');
        const f = await w.make('file', 'A/B/f.txt', { content: 'eff' });
        const deep = await w.make('folder', 'A/B/D');
        await w.make('folder', 'C');
        const link = await w.make('link', 'A/l', { linkUrl: 'https://example.com' });

        const moved = await w.ok('PATCH', `/v1/files/${b.id}`, { path: 'C/Bee' });
        assert.deepEqual(
          [moved.id, moved.path, moved.name, moved.object, moved.updatedAt > b.updatedAt],
          [b.id, 'C/Bee', 'Bee', 'folder', true],
        );
        assert.deepEqual(await w.paths(), ['A', 'A/l', 'C', 'C/Bee', 'C/Bee/D', 'C/Bee/f.txt']);
        const file = await w.ok('GET', `/v1/files/${f.id}`);
        assert.deepEqual([file.path, file.name, file.updatedAt], ['C/Bee/f.txt', 'f.txt', f.updatedAt], 'contents keep their updatedAt');
        assert.equal((await w.call('GET', `/v1/files/${f.id}/download`)).body, 'eff', 'content and id kept');

        const renamed = await w.ok('PATCH', `/v1/files/${f.id}`, { path: '/g.txt' });
        assert.deepEqual(
          [renamed.path, renamed.name, renamed.status, typeof renamed.downloadUrl],
          ['g.txt', 'g.txt', 'completed', 'string'],
        );
        const relinked = await w.ok('PATCH', `/v1/files/${link.id}`, { linkUrl: 'https://example.org/x' });
        assert.deepEqual([relinked.path, relinked.linkUrl], ['A/l', 'https://example.org/x']);

        const refused = async (id: string, body: object, paths: string[]) => {
          const res = await w.call('PATCH', `/v1/files/${id}`, body);
          assertRefused(res, 400, paths);
        };
        await refused(b.id, { path: 'C/Bee/D/x' }, ['body.path']);
        await refused(b.id, { path: 'C/Bee/x' }, ['body.path']);
        await refused(a.id, { path: 'Nope/A' }, ['body.path']);
        await refused(a.id, { path: 'A/../x' }, ['body.path']);
        await refused(f.id, { linkUrl: 'https://example.com' }, ['body.linkUrl']);
        await refused(link.id, { linkUrl: 'ftp://example.com' }, ['body.linkUrl']);
        assert.deepEqual(await w.ok('PATCH', `/v1/files/${a.id}`, {}), await w.ok('GET', `/v1/files/${a.id}`), 'nothing to change');
        assert.equal((await w.ok('PATCH', `/v1/files/${a.id}`, { path: 'A' })).updatedAt, a.updatedAt, 'the path it has');
        const clash = await w.call('PATCH', `/v1/files/${b.id}`, { path: 'A' });
        assert.deepEqual(
          [clash.statusCode, clash.json()],
          [409, { code: 'conflict', message: 'A file, folder or link already exists at "A" in this channel.', data: null }],
        );
        assert.deepEqual(await w.paths(), ['A', 'A/l', 'C', 'C/Bee', 'C/Bee/D', 'g.txt'], 'nothing changed by a refusal');
        assert.equal((await w.ok('GET', `/v1/files/${deep.id}`)).path, 'C/Bee/D');

        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        assert.equal((await w.call('PATCH', `/v1/files/${a.id}`, { path: 'Z' }, ada)).statusCode, 403);
        const { session } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
        assert.equal((await w.call('PATCH', `/v1/files/${a.id}`, { path: 'Z' }, session)).statusCode, 404);
        const other = await populatedWorkspace(h, 'Other');
        assert.equal((await w.call('PATCH', `/v1/files/${a.id}`, { path: 'Z' }, other.ws.apiKey)).statusCode, 404);
        assert.equal((await w.call('PATCH', `/v1/files/${UNKNOWN}`, { path: 'Z' })).statusCode, 404);

        const updates = await events(h, w.ws.workspaceId, /Updated$/);
        assert.deepEqual(
          updates.map((e) => [e.event_type, e.ref, e.scope_company_id, e.context, e.previous_attributes]),
          [
            [
              'folderUpdated',
              b.id,
              w.acme.id,
              { channelId: w.adas.id, fileId: b.id, path: 'C/Bee', previousPath: 'A/B', contentsMoved: 2 },
              { path: 'A/B', name: 'B' },
            ],
            [
              'fileUpdated',
              f.id,
              w.acme.id,
              { channelId: w.adas.id, fileId: f.id, path: 'g.txt', previousPath: 'C/Bee/f.txt' },
              { path: 'C/Bee/f.txt', name: 'f.txt' },
            ],
            ['linkUpdated', link.id, w.acme.id, { channelId: w.adas.id, fileId: link.id, path: 'A/l' }, { linkUrl: 'https://example.com' }],
          ],
        );
      });

      test('zip archive: files and folders at their paths, bytes intact; links and pending files left out inside folders, refused when named', async (t) => {
        const h = await adminHarness(t, backend, { fileStore: store });
        const w = await world(h);
        const top = await w.make('file', 'top.txt', { content: 'top' });
        const d = await w.make('folder', 'D');
        await w.make('file', 'D/x.bin', { content: Buffer.from([0, 1, 2, 255]) });
        await w.make('folder', 'D/Empty');
        await w.make('folder', 'D/Sub');
        await w.make('file', 'D/Sub/ü.txt', { content: 'unicode' });
        const inLink = await w.make('link', 'D/site', { linkUrl: 'https://example.com' });
        const pending = await w.make('file', 'D/pending.txt');
        await w.make('file', 'Elsewhere.txt', { content: 'not named' });

        const res = await w.call('GET', `/v1/files/archive?ids=${top.id},${d.id}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(
          [res.headers['content-type'], res.headers['content-disposition'], res.headers['cache-control'], res.headers['content-length']],
          ['application/zip', 'attachment; filename="files.zip"', 'private, no-store', undefined],
        );
        assert.deepEqual(await unzip(res.rawPayload), [
          ['D/', ''],
          ['D/Empty/', ''],
          ['D/Sub/', ''],
          ['D/Sub/ü.txt', 'unicode'],
          ['D/x.bin', Buffer.from([0, 1, 2, 255]).toString()],
          ['top.txt', 'top'],
        ]);

        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        h.clock.advance(1000);
        const asAda = await w.call('GET', `/v1/files/archive?ids=${top.id}`, undefined, ada);
        assert.deepEqual(await unzip(asAda.rawPayload), [['top.txt', 'top']], 'a client downloads from its channel');

        const refused = async (query: string, status: number, paths: string[], key = w.ws.apiKey) => {
          const r = await w.call('GET', `/v1/files/archive?ids=${query}`, undefined, key);
          assertRefused(r, status, paths);
        };
        await refused(`${top.id},${inLink.id},${pending.id}`, 400, ['query.ids.1', 'query.ids.2']);
        await refused(`${top.id},${UNKNOWN},${d.id},${UNKNOWN.replace('3f', '4f')}`, 404, ['query.ids.1', 'query.ids.3']);
        const betaFile = await w.make('file', 'b.txt', { content: 'beta', channelId: w.betas.id });
        await refused(`${top.id},${betaFile.id}`, 400, ['query.ids.1']);
        await refused(`${top.id},${top.id}`, 400, ['query.ids']);
        await refused(`${top.id},`, 400, ['query.ids']);
        await refused(Array.from({ length: 101 }, () => UNKNOWN).join(','), 400, ['query.ids']);
        const bob = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.bob.id });
        await refused(`${betaFile.id},${top.id}`, 404, ['query.ids.1'], bob);
        const { session } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
        await refused(`${betaFile.id},${top.id}`, 404, ['query.ids.1'], session);
        const other = await populatedWorkspace(h, 'Other');
        await refused(top.id, 404, ['query.ids.0'], other.ws.apiKey);

        const downloads = await events(h, w.ws.workspaceId, /^fileBatchDownloaded$/);
        assert.deepEqual(
          downloads.map((e) => [e.ref, e.scope_company_id, e.context]),
          [
            [w.adas.id, w.acme.id, { channelId: w.adas.id, ids: [top.id, d.id], files: 3 }],
            [w.adas.id, w.acme.id, { channelId: w.adas.id, ids: [top.id], files: 1 }],
          ],
        );
      });

      test('batch delete: all or nothing; an item the caller cannot see refuses the batch (404 naming it); folders only with their contents', async (t) => {
        const h = await adminHarness(t, backend, { fileStore: store });
        const w = await world(h);
        const f = await w.make('folder', 'F');
        const inside = await w.make('file', 'F/in.txt', { content: 'in' });
        const loose = await w.make('file', 'loose.txt', { content: 'loose' });
        const link = await w.make('link', 'L', { linkUrl: 'https://example.com' });
        const keys = async () => {
          const found: string[] = [];
          for await (const { key } of h.app.ctx.files.store.list()) if (key.startsWith(w.ws.workspaceId)) found.push(key.split('/')[1]);
          return found.sort();
        };
        assert.deepEqual(await keys(), [inside.id, loose.id].sort());

        const refused = async (ids: string[], status: number, paths: string[], key = w.ws.apiKey) => {
          const r = await w.call('POST', '/v1/files/batch-delete', { ids }, key);
          assertRefused(r, status, paths);
        };
        await refused([loose.id, f.id], 400, ['body.ids.1']);
        await refused([loose.id, UNKNOWN, link.id], 404, ['body.ids.1']);
        const other = await populatedWorkspace(h, 'Other');
        await refused([loose.id], 404, ['body.ids.0'], other.ws.apiKey);
        const betaFile = await w.make('file', 'b.txt', { content: 'beta', channelId: w.betas.id });
        await refused([loose.id, betaFile.id], 400, ['body.ids.1']);
        const { session } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
        await refused([betaFile.id, loose.id], 404, ['body.ids.1'], session);
        await refused([loose.id, loose.id], 400, ['body.ids']);
        await refused([], 400, ['body.ids']);
        await refused(
          Array.from({ length: 101 }, (_, i) => `${UNKNOWN.slice(0, -3)}${String(i).padStart(3, '0')}`),
          400,
          ['body.ids'],
        );
        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        assert.equal((await w.call('POST', '/v1/files/batch-delete', { ids: [loose.id] }, ada)).statusCode, 403);
        assert.deepEqual(await w.paths(), ['F', 'F/in.txt', 'L', 'loose.txt'], 'nothing deleted by a refusal');
        assert.deepEqual(await keys(), [inside.id, loose.id, betaFile.id].sort());

        const deleted = await w.ok('POST', '/v1/files/batch-delete', { ids: [f.id, link.id, inside.id, loose.id] });
        assert.deepEqual(deleted, {
          data: [
            { id: f.id, object: 'folder', deleted: true },
            { id: link.id, object: 'link', deleted: true },
            { id: inside.id, object: 'file', deleted: true },
            { id: loose.id, object: 'file', deleted: true },
          ],
        });
        assert.deepEqual(await w.paths(), []);
        assert.deepEqual(await keys(), [betaFile.id], 'their content left the store');
        const batch = await events(h, w.ws.workspaceId, /^fileBatchDeleted$/);
        assert.deepEqual(
          batch.map((e) => [e.ref, e.scope_company_id, e.context]),
          [
            [
              w.adas.id,
              w.acme.id,
              {
                channelId: w.adas.id,
                items: [
                  { id: f.id, object: 'folder', path: 'F' },
                  { id: link.id, object: 'link', path: 'L' },
                  { id: inside.id, object: 'file', path: 'F/in.txt' },
                  { id: loose.id, object: 'file', path: 'loose.txt' },
                ],
              },
            ],
          ],
        );
      });

      test('the archive is streamed: the store is read only as far as the reply is taken (bounded read-ahead), what is held stays bounded', async (t) => {
        const h = await adminHarness(t, backend, { fileStore: store });
        const w = await world(h);
        await h.app.listen({ port: 0, host: '127.0.0.1' });
        const address = h.app.server.address();
        assert.ok(address && typeof address === 'object');
        const MiB = 1024 * 1024;
        const FILE_BYTES = 16 * MiB;
        // One random 64 KiB block repeated: incompressible to deflate (its window is 32 KiB), and cheap to make.
        const block = randomBytes(64 * 1024);
        const http = (method: string, path: string, headers: Record<string, string | number>, body?: Iterable<Buffer>) =>
          new Promise<IncomingMessage>((resolve, reject) => {
            const req = request({ host: '127.0.0.1', port: address.port, method, path, headers }, resolve).on('error', reject);
            if (body) Readable.from(body).pipe(req);
            else req.end();
          });
        const ids: string[] = [];
        for (const name of ['one.bin', 'two.bin', 'three.bin']) {
          const made = await w.make('file', name);
          const url = new URL(made.uploadUrl);
          const blocks = function* () {
            for (let sent = 0; sent < FILE_BYTES; sent += block.length) yield block;
          };
          const put = await http(
            'PUT',
            `${url.pathname}${url.search}`,
            { 'content-type': 'application/octet-stream', 'content-length': FILE_BYTES },
            blocks(),
          );
          assert.equal(put.statusCode, 200);
          put.resume();
          await new Promise((done) => put.on('end', done));
          ids.push(made.id);
        }

        // Count what the archive reads from the store.
        const files = h.app.ctx.files.store;
        const get = files.get.bind(files);
        let fromStore = 0;
        let open = 0;
        let mostOpen = 0;
        files.get = async (key) => {
          const found = await get(key);
          if (!found) return found;
          open++;
          mostOpen = Math.max(mostOpen, open);
          const counted = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              fromStore += chunk.length;
              done(null, chunk);
            },
          });
          counted.on('close', () => open--);
          return { size: found.size, body: asStream(found.body).pipe(counted) as Readable };
        };
        t.after(() => {
          files.get = get;
        });

        const res = await http('GET', `/v1/files/archive?ids=${ids.join(',')}`, {
          'x-api-key': w.ws.apiKey,
        });
        assert.equal(res.statusCode, 200);
        // Take 1 MiB, then stop reading: the archive may read ahead only as far as the buffers on the way hold.
        let received = 0;
        await new Promise<void>((paused) => {
          const take = (chunk: Buffer) => {
            received += chunk.length;
            if (received >= MiB) {
              res.pause();
              res.off('data', take);
              paused();
            }
          };
          res.on('data', take);
        });
        let settled = -1;
        while (settled !== fromStore) {
          settled = fromStore;
          await new Promise((later) => setTimeout(later, 200));
        }
        t.diagnostic(`read ahead: ${fromStore} bytes from the store for ${received} taken`);
        assert.ok(fromStore < 16 * MiB, `read ${fromStore} bytes from the store for ${received} taken: no more than the pipes hold`);
        assert.ok(fromStore > 0);
        // Then all of it: what was read from the store and not yet taken (what the server holds, wherever it is) stays
        // within what the pipes hold; the archive held whole would be up to its 48 MiB.
        let mostHeld = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          mostHeld = Math.max(mostHeld, fromStore - received);
        });
        res.resume();
        await new Promise((done) => res.on('end', done));
        assert.equal(fromStore, 3 * FILE_BYTES, 'every byte of the three files read');
        assert.ok(received > 3 * FILE_BYTES, `the archive holds them (${received} bytes)`);
        assert.equal(mostOpen, 1, 'one store stream open at a time');
        t.diagnostic(`held at most: ${mostHeld} bytes`);
        assert.ok(mostHeld < 16 * MiB, `${mostHeld} bytes read from the store and not yet taken`);
      });
    });
  }
}
