import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type TestContext, describe, test } from 'node:test';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import {
  addClientCompany,
  auditEntries,
  limitedUserSession,
  populatedWorkspace,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, type HarnessOptions, adminHarness } from '../../../../test/helpers/harness.js';
import { FILE_STORES } from '../../../../test/helpers/s3.js';
import { sweepContent } from './content-sweep.js';
import { SMALL_BYTES } from './file-store.js';
import { acmeAndBeta, okJson } from '../../../../test/helpers/world.js';

const UNKNOWN = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const UPLOADED_ONCE =
  'This file’s content has been uploaded already: a file’s content is set once. To replace it, create a new file (and delete this one).';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Acme Co (ada), Beta (bob, cy), multi in both; an individual channel of ada's and a company channel of Beta's. */
async function world(h: Harness) {
  const w = await acmeAndBeta(h);
  const cy = await w.betaClient('cy');
  const ok = async (method: Method, url: string, payload?: object, key = w.ws.apiKey) => {
    h.clock.advance(1000);
    return okJson(await w.call(method, url, payload, key), `${method} ${url}`);
  };
  const adas = await ok('POST', '/v1/channels/files', { membershipType: 'individual', clientId: w.ada.id });
  const betas = await ok('POST', '/v1/channels/files', { membershipType: 'company', companyId: w.beta.id });
  return { ...w, cy, ok, adas, betas };
}

/** An absolute signed URL as an injectable path and query. */
const local = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** PUTs bytes to a signed upload URL. */
const upload = (h: Harness, url: string, body: string | Buffer, contentType = 'text/plain') =>
  h.app.inject({ method: 'PUT', url: local(url), payload: body, headers: { 'content-type': contentType } });

/**
 * Every stored content object, as the store lists it, and the local store's temporary files (uploads in progress
 * or cut short; an S3 store's are in memory or unfinished multipart uploads, which are not objects).
 */
async function stored(h: Harness): Promise<{ objects: string[]; temporary: string[] }> {
  const objects: string[] = [];
  for await (const { key } of h.app.ctx.files.store.list()) objects.push(key);
  const temporary = h.app.ctx.config.filesS3 ? [] : await readdir(temporaryDir(h)).catch(() => [] as string[]);
  return { objects: objects.sort(), temporary };
}

/** The local store's directory of uploads in progress: under the database's own id. */
const temporaryDir = (h: Harness) => join(h.app.ctx.config.filesDir, h.app.ctx.files.store.namespace, '.tmp');

/** Whether an upload of the file holds its claim (under way, on either store). */
const uploading = async (h: Harness, id: string) =>
  (await h.app.ctx.db.selectFrom('files').select('storage_key').where('id', '=', id).executeTakeFirstOrThrow()).storage_key !== null;

/** An upload of 1,000,000 bytes on a socket of its own, 300,000 of them sent: under way until the socket is destroyed. */
async function uploadUnderWay(t: TestContext, h: Harness, uploadUrl: string) {
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.app.server.address();
  assert.ok(address && typeof address === 'object');
  const socket = connect(address.port, '127.0.0.1');
  t.after(() => socket.destroy());
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `PUT ${local(uploadUrl)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n`,
  );
  socket.write(Buffer.alloc(300_000, 7));
  return socket;
}

const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((item) => item.id);

for (const backend of BACKENDS) {
  for (const store of FILE_STORES) {
    const harnessOf = (t: Parameters<typeof adminHarness>[0], _backend: (typeof BACKENDS)[number], opts: HarnessOptions = {}) =>
      adminHarness(t, backend, { fileStore: store, ...opts });
    describe(`files: channels, files, folders and links [${backend}, ${store} store]`, () => {
      test('channels: each membership type in the SDK’s shape, absent fields left out; filters; every rule a 400 naming its field', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        assert.deepEqual(w.adas, {
          id: w.adas.id,
          object: 'fileChannel',
          createdAt: w.adas.createdAt,
          updatedAt: w.adas.createdAt,
          membershipType: 'individual',
          clientId: w.ada.id,
          companyId: w.acme.id,
          membershipEntityId: w.ada.id,
          memberIds: [w.ada.id],
          clientPermissions: 'read-write',
        });
        const group = await w.ok('POST', '/v1/channels/files', { membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
        assert.deepEqual(
          [group.companyId, group.memberIds, 'clientId' in group, 'membershipEntityId' in group],
          [w.beta.id, [w.bob.id, w.cy.id], false, false],
        );
        assert.deepEqual(Object.keys(w.betas).sort(), [
          'clientPermissions',
          'companyId',
          'createdAt',
          'id',
          'membershipEntityId',
          'membershipType',
          'object',
          'updatedAt',
        ]);
        const list = (query = '') => w.call('GET', `/v1/channels/files${query}`);
        assert.deepEqual(ids(await list()), [group.id, w.betas.id, w.adas.id], 'newest first');
        assert.deepEqual(
          ids(await list('?clientId=&companyId=&membershipEntityId=')),
          [group.id, w.betas.id, w.adas.id],
          'empty filters: none',
        );
        assert.deepEqual(ids(await list(`?companyId=${w.beta.id}`)), [group.id, w.betas.id]);
        assert.deepEqual(ids(await list(`?clientId=${w.ada.id}`)), [w.adas.id]);
        assert.deepEqual(ids(await list('?membershipType=group')), [group.id]);
        assert.deepEqual(ids(await list(`?memberId=${w.bob.id}`)), [group.id, w.betas.id]);
        assert.deepEqual(ids(await list(`?memberId=${UNKNOWN}`)), []);
        const page = (await list('?limit=2')).json();
        assert.deepEqual(ids(await list(`?limit=2&nextToken=${page.nextToken}`)), [w.adas.id]);
        assert.deepEqual(await w.ok('GET', `/v1/channels/files/${w.adas.id}`), w.adas);
        assert.equal((await w.call('GET', `/v1/channels/files/${UNKNOWN}`)).statusCode, 404);

        const problems = async (body: object) => {
          const res = await w.call('POST', '/v1/channels/files', body);
          assert.equal(res.statusCode, 400, res.body);
          return res.json().data.map((p: { path: string }) => p.path);
        };
        assert.deepEqual(await problems({ membershipType: 'individual' }), ['body.clientId']);
        assert.deepEqual(await problems({ membershipType: 'group' }), ['body.memberIds']);
        assert.deepEqual(await problems({ membershipType: 'company' }), ['body.companyId']);
        assert.deepEqual(await problems({ membershipType: 'group', memberIds: [w.ada.id, w.bob.id] }), ['body.memberIds.1']);
        assert.deepEqual(await problems({ membershipType: 'individual', clientId: UNKNOWN }), ['body.clientId']);
        assert.deepEqual(await problems({ membershipType: 'team' }), ['body.membershipType']);
        assert.deepEqual(ids(await list()), [group.id, w.betas.id, w.adas.id], 'nothing written');
      });

      test('a file: created pending with an uploadUrl, its content PUT there, then completed with a downloadUrl; downloads and events', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Reports' });
        assert.deepEqual(folder, {
          id: folder.id,
          object: 'folder',
          channelId: w.adas.id,
          createdAt: folder.createdAt,
          updatedAt: folder.createdAt,
          name: 'Reports',
          path: 'Reports',
          clientPermissions: 'read-write',
        });
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: '/Reports/Q3 résumé.txt' });
        assert.deepEqual(
          [file.object, file.name, file.path, file.status, 'size' in file, 'downloadUrl' in file],
          ['file', 'Q3 résumé.txt', 'Reports/Q3 résumé.txt', 'pending', false, false],
        );
        assert.match(
          file.uploadUrl,
          new RegExp(`^http://127\\.0\\.0\\.1:8080/files/uploads/${file.id}\\?workspaceId=.+&expires=\\d+&signature=`),
        );
        assert.equal((await w.call('GET', `/v1/files/${file.id}/download`)).statusCode, 400, 'no content yet');

        const put = await upload(h, file.uploadUrl, 'hello, files', 'text/plain; charset=utf-8');
        assert.equal(put.statusCode, 200, put.body);
        assert.deepEqual([put.json().status, put.json().size, put.json().contentType], ['completed', 12, 'text/plain']);
        const got = await w.ok('GET', `/v1/files/${file.id}`);
        assert.deepEqual([got.status, got.size, 'uploadUrl' in got], ['completed', 12, false]);
        assert.match(got.downloadUrl, new RegExp(`/files/downloads/${file.id}\\?`));

        const direct = await w.call('GET', `/v1/files/${file.id}/download`);
        assert.equal(direct.statusCode, 200);
        assert.equal(direct.body, 'hello, files');
        assert.equal(direct.headers['content-type'], 'text/plain');
        assert.equal(direct.headers['x-content-type-options'], 'nosniff');
        assert.match(
          String(direct.headers['content-disposition']),
          /^attachment; filename="Q3 r_sum_.txt"; filename\*=UTF-8''Q3%20r%C3%A9sum%C3%A9.txt$/,
        );
        const { downloadUrl } = await w.ok('GET', `/v1/files/${file.id}/download-url`);
        const signed = await h.app.inject({ method: 'GET', url: local(downloadUrl) });
        assert.deepEqual([signed.statusCode, signed.body], [200, 'hello, files'], 'the signed URL needs no credential');

        const link = await w.ok('POST', '/v1/files/link', { channelId: w.adas.id, path: 'Site', linkUrl: 'https://example.com/x' });
        assert.deepEqual(
          [link.object, link.linkUrl, 'status' in link, 'clientPermissions' in link],
          ['link', 'https://example.com/x', false, false],
        );
        const listed = await w.ok('GET', `/v1/files?channelId=${w.adas.id}`);
        assert.deepEqual(
          listed.data.map((f: { id: string }) => f.id),
          [link.id, file.id, folder.id],
        );
        assert.equal(
          listed.data.some((f: object) => 'downloadUrl' in f || 'uploadUrl' in f),
          false,
          'no signed URL in a list',
        );
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=Reports`)), [file.id], 'inside the folder only');
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=Rep`)), [], 'a prefix of a name is not a folder');
        assert.equal((await w.call('GET', `/v1/files?channelId=${UNKNOWN}`)).statusCode, 404);

        const events = (await auditEntries(h, w.ws.workspaceId)).filter((e) => /^(file|folder|link)/.test(e.event_type));
        assert.deepEqual(
          events.map((e) => [e.event_type, e.ref, e.scope_company_id]),
          [
            ['folderCreated', folder.id, w.acme.id],
            ['fileCreated', file.id, w.acme.id],
            ['fileDownloaded', file.id, w.acme.id],
            ['fileDownloaded', file.id, w.acme.id],
            ['linkCreated', link.id, w.acme.id],
          ],
        );
      });

      test('content past the local store’s whole-read size downloads byte for byte, directly and by signed URL', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const content = randomBytes(3 * SMALL_BYTES + 11);
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'big.bin' });
        const put = await upload(h, file.uploadUrl, content, 'application/octet-stream');
        assert.deepEqual([put.statusCode, put.json().size], [200, content.length], put.body);
        const direct = await w.call('GET', `/v1/files/${file.id}/download`);
        const { downloadUrl } = await w.ok('GET', `/v1/files/${file.id}/download-url`);
        const signed = await h.app.inject({ method: 'GET', url: local(downloadUrl) });
        for (const [how, res] of [
          ['direct', direct],
          ['signed', signed],
        ] as const) {
          assert.deepEqual(
            [res.statusCode, res.headers['content-length'], res.headers['content-type']],
            [200, String(content.length), 'application/octet-stream'],
            how,
          );
          assert.ok(res.rawPayload.equals(content), `${how}: every byte as uploaded`);
        }
      });

      test('paths: traversal, control characters, empty segments and missing folders are 400s naming body.path; a taken path a 409', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const problem = async (body: object, type = 'file') => {
          const res = await w.call('POST', `/v1/files/${type}`, { channelId: w.adas.id, ...body });
          assert.equal(res.statusCode, 400, res.body);
          return res.json().data.map((p: { path: string }) => p.path);
        };
        for (const path of [
          '../etc/passwd',
          'a/../../b',
          './x',
          'a\\..\\b',
          'a//b',
          'bad\u0000name',
          'tab\tname',
          '/',
          '  ',
          'x'.repeat(256),
        ]) {
          assert.deepEqual(await problem({ path }), ['body.path'], JSON.stringify(path));
        }
        assert.deepEqual(await problem({ path: 'Missing/file.txt' }), ['body.path'], 'its folder must exist');
        assert.deepEqual(await problem({ path: 'l', linkUrl: 'javascript:alert(1)' }, 'link'), ['body.linkUrl']);
        assert.deepEqual(await problem({ path: 'l' }, 'link'), ['body.linkUrl']);
        assert.deepEqual(await problem({ path: 'f', linkUrl: 'https://x.test' }), ['body.linkUrl']);
        assert.deepEqual(await problem({ path: 'f', clientPermissions: 'read_only' }), ['body.clientPermissions']);
        assert.deepEqual(await problem({ path: 'f', channelId: UNKNOWN }), ['body.channelId']);
        assert.deepEqual(await problem({ path: '../f', channelId: UNKNOWN }), ['body.path', 'body.channelId'], 'every problem at once');
        assert.deepEqual(await problem({ path: 'f', extra: 1 }), ['body.extra']);
        assert.equal(
          (await w.call('POST', '/v1/files/script', { channelId: w.adas.id, path: 'x' })).statusCode,
          404,
          'three operations: another type is no route',
        );
        assert.deepEqual((await w.ok('GET', `/v1/files?channelId=${w.adas.id}`)).data, [], 'nothing written');
        await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Docs' });
        const taken = await w.call('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Docs' });
        assert.deepEqual([taken.statusCode, taken.json().code], [409, 'conflict']);
        assert.equal((await w.call('POST', '/v1/files/file', { channelId: w.adas.id, path: 'x/y' })).statusCode, 400);
        const inFile = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Docs/a.txt' });
        const under = await w.call('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Docs/a.txt/b.txt' });
        assert.deepEqual([under.statusCode, under.json().data[0].path], [400, 'body.path'], 'a file is not a folder');
        assert.equal(inFile.path, 'Docs/a.txt');
        const listed = await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=../x`);
        assert.deepEqual([listed.statusCode, listed.json().data[0].path], [400, 'querystring.path']);
      });

      test('uploads: the size cap (413, nothing kept), the content type checked, the content uploaded once (a second PUT a 409)', async (t) => {
        const h = await harnessOf(t, backend, { env: { FILES_MAX_BYTES: '16' } });
        const w = await world(h);
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'a.bin' });
        const big = await upload(h, file.uploadUrl, 'x'.repeat(17));
        assert.deepEqual([big.statusCode, big.json().code], [413, 'payload_too_large'], 'announced too large');
        // Streamed past the cap without announcing its length (chunked): cut off as it arrives.
        await h.app.listen({ port: 0, host: '127.0.0.1' });
        const address = h.app.server.address();
        assert.ok(address && typeof address === 'object');
        const status = await new Promise<number | undefined>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port: address.port,
              method: 'PUT',
              path: local(file.uploadUrl),
              headers: { 'content-type': 'application/octet-stream' },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode);
            },
          );
          req.on('error', reject);
          for (let i = 0; i < 4; i++) req.write(Buffer.alloc(8, i));
          req.end();
        });
        assert.equal(status, 413);
        assert.deepEqual(await stored(h), { objects: [], temporary: [] }, 'nothing left behind');
        assert.equal((await w.ok('GET', `/v1/files/${file.id}`)).status, 'pending');
        const badType = await upload(h, file.uploadUrl, 'x', 'not a type');
        assert.equal(badType.statusCode, 415);
        assert.equal((await upload(h, file.uploadUrl, 'first')).statusCode, 200);
        const again = await upload(h, file.uploadUrl, 'second');
        assert.deepEqual([again.statusCode, again.json()], [409, { code: 'conflict', message: UPLOADED_ONCE, data: null }]);
        assert.equal((await w.call('GET', `/v1/files/${file.id}/download`)).body, 'first', 'the content is the first upload’s');
        const svg = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'b.svg' });
        assert.equal((await upload(h, svg.uploadUrl, '<svg onload=x>', 'image/svg+xml')).statusCode, 200);
        const served = await w.call('GET', `/v1/files/${svg.id}/download`);
        assert.deepEqual(
          [served.body, served.headers['content-type']],
          ['<svg onload=x>', 'application/octet-stream'],
          'a type a browser would run is served as bytes',
        );
        assert.equal((await stored(h)).objects.length, 2);
      });

      test('signed URLs: forged, altered, expired or for the other action are 403s', async (t) => {
        const h = await harnessOf(t, backend, { env: { FILES_URL_TTL_SECONDS: '60' } });
        const w = await world(h);
        const other = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'other.txt' });
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'a.txt' });
        const url = new URL(file.uploadUrl);
        const variant = (change: (u: URL) => void) => {
          const copy = new URL(url);
          change(copy);
          return copy.toString();
        };
        const forbidden = async (target: string, method: 'PUT' | 'GET' = 'PUT') => {
          const res = await h.app.inject({ method, url: local(target), ...(method === 'PUT' ? { payload: 'x' } : {}) });
          assert.equal(res.statusCode, 403, `${target}: ${res.body}`);
        };
        await forbidden(variant((u) => u.searchParams.set('signature', 'A'.repeat(43))));
        await forbidden(variant((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))));
        await forbidden(variant((u) => u.searchParams.set('workspaceId', UNKNOWN)));
        await forbidden(variant((u) => (u.pathname = `/files/uploads/${other.id}`)));
        await forbidden(
          variant((u) => (u.pathname = `/files/downloads/${file.id}`)),
          'GET',
        );
        const missing = await h.app.inject({ method: 'PUT', url: `/files/uploads/${file.id}`, payload: 'x' });
        assert.equal(missing.statusCode, 400, 'no signature at all');
        h.clock.advance(61_000);
        await forbidden(file.uploadUrl);
        assert.equal((await w.ok('GET', `/v1/files/${file.id}`)).status, 'pending');
        const fresh = await w.ok('GET', `/v1/files/${file.id}`);
        assert.equal((await upload(h, fresh.uploadUrl, 'late')).statusCode, 200, 'retrieve signs a fresh one');
        const { downloadUrl } = await w.ok('GET', `/v1/files/${file.id}/download-url`);
        h.clock.advance(61_000);
        await forbidden(downloadUrl, 'GET');
      });

      test('a killed upload (socket closed mid-body) leaves no file, temporary or stored', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'big.bin' });
        const socket = await uploadUnderWay(t, h, file.uploadUrl);
        await heldWithin(5000, 'the upload is under way', () => uploading(h, file.id));
        if (store === 'local') await heldWithin(5000, 'into a temporary file', async () => (await stored(h)).temporary.length === 1);
        socket.destroy();
        await heldWithin(5000, 'the upload is given up', async () => !(await uploading(h, file.id)));
        await heldWithin(5000, 'its temporary file goes', async () => (await stored(h)).temporary.length === 0);
        assert.deepEqual(await stored(h), { objects: [], temporary: [] });
        assert.equal((await w.ok('GET', `/v1/files/${file.id}`)).status, 'pending');
      });

      test('delete: a file with its content, a link, a folder only when empty; events', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'F' });
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'F/a.txt' });
        await upload(h, file.uploadUrl, 'content');
        assert.equal((await stored(h)).objects.length, 1);
        const full = await w.call('DELETE', `/v1/files/${folder.id}`);
        assert.deepEqual([full.statusCode, full.json().message], [400, 'Folder is not empty']);
        assert.deepEqual(await w.ok('DELETE', `/v1/files/${file.id}`), { id: file.id, object: 'file', deleted: true });
        assert.deepEqual((await stored(h)).objects, [], 'its content is gone');
        assert.deepEqual(await w.ok('DELETE', `/v1/files/${folder.id}`), { id: folder.id, object: 'folder', deleted: true });
        assert.equal((await w.call('GET', `/v1/files/${file.id}`)).statusCode, 404);
        assert.equal((await w.call('DELETE', `/v1/files/${file.id}`)).statusCode, 404);
        const link = await w.ok('POST', '/v1/files/link', { channelId: w.adas.id, path: 'L', linkUrl: 'http://l.test' });
        await w.ok('DELETE', `/v1/files/${link.id}`);
        const events = (await auditEntries(h, w.ws.workspaceId)).map((e) => e.event_type).filter((e) => /Deleted$/.test(e));
        assert.deepEqual(events, ['fileDeleted', 'folderDeleted', 'linkDeleted']);
      });

      test('permissions: a folder’s and the root’s; a client session creates only where clients may write', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Shared', clientPermissions: 'read_only' });
        assert.equal(folder.clientPermissions, 'read-only');
        const refused = await w.call('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Shared/mine.txt' }, ada);
        assert.equal(refused.statusCode, 403, refused.body);
        const set = await w.ok('PUT', `/v1/files/${folder.id}/permissions/`, { clientPermissions: 'read_write' });
        assert.deepEqual(set, { id: folder.id, channelId: w.adas.id, clientPermissions: 'read-write' });
        assert.equal((await w.ok('GET', `/v1/files/${folder.id}`)).clientPermissions, 'read-write');
        const mine = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Shared/mine.txt' }, ada);
        assert.deepEqual([mine.creatorId, mine.lastModifiedBy], [w.ada.id, { id: w.ada.id, object: 'client' }]);
        // The root: channelId required.
        const noChannel = await w.call('PUT', '/v1/files/root/permissions/', { clientPermissions: 'read_only' });
        assert.deepEqual([noChannel.statusCode, noChannel.json().data[0].path], [400, 'body.channelId']);
        const bad = await w.call('PUT', `/v1/files/${folder.id}/permissions/`, { clientPermissions: 'admin' });
        assert.deepEqual([bad.statusCode, bad.json().data[0].path], [400, 'body.clientPermissions']);
        const notFolder = await w.call('PUT', `/v1/files/${mine.id}/permissions/`, { clientPermissions: 'read_only' });
        assert.equal(notFolder.statusCode, 400);
        assert.deepEqual(await w.ok('PUT', '/v1/files/root/permissions/', { clientPermissions: 'read_only', channelId: w.adas.id }), {
          id: 'root',
          channelId: w.adas.id,
          clientPermissions: 'read-only',
        });
        // The channel says what clients may do at its root, to whoever sees it.
        for (const caller of [undefined, ada]) {
          assert.equal((await w.ok('GET', `/v1/channels/files/${w.adas.id}`, undefined, caller)).clientPermissions, 'read-only');
          const listed = (await w.ok('GET', '/v1/channels/files', undefined, caller)).data.find((c: { id: string }) => c.id === w.adas.id);
          assert.equal(listed.clientPermissions, 'read-only');
        }
        assert.equal((await w.call('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Top' }, ada)).statusCode, 403);
        assert.equal(
          (await w.call('PUT', '/v1/files/root/permissions/', { clientPermissions: 'read_write', channelId: w.adas.id }, ada)).statusCode,
          403,
        );
        const updates = (await auditEntries(h, w.ws.workspaceId)).filter((e) => e.event_type === 'folderUpdated');
        assert.deepEqual(
          updates.map((e) => [e.context.folderId, e.context.clientPermissions, e.previous_attributes]),
          [
            [folder.id, 'read_write', { clientPermissions: 'read_only' }],
            ['root', 'read_only', { clientPermissions: 'read_write' }],
          ],
        );
      });

      test('a client session sees its own channels and their files only; it may not create a channel, delete or set permissions', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        await addClientCompany(h, w.ws.workspaceId, w.bob, w.acme.id);
        const acmes = await w.ok('POST', '/v1/channels/files', { membershipType: 'company', companyId: w.acme.id });
        const adaFile = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'ada.txt' });
        await upload(h, adaFile.uploadUrl, 'ada only');
        const bob = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.bob.id });
        assert.deepEqual(ids(await w.call('GET', '/v1/channels/files', undefined, bob)), [acmes.id, w.betas.id], 'its companies’ channels');
        for (const url of [
          `/v1/channels/files/${w.adas.id}`,
          `/v1/files?channelId=${w.adas.id}`,
          `/v1/files/${adaFile.id}`,
          `/v1/files/${adaFile.id}/download`,
          `/v1/files/${adaFile.id}/download-url`,
        ]) {
          assert.equal((await w.call('GET', url, undefined, bob)).statusCode, 404, url);
        }
        const into = await w.call('POST', '/v1/files/file', { channelId: w.adas.id, path: 'x' }, bob);
        assert.deepEqual([into.statusCode, into.json().data[0].path], [400, 'body.channelId']);
        assert.equal(
          (await w.call('POST', '/v1/channels/files', { membershipType: 'company', companyId: w.beta.id }, bob)).statusCode,
          403,
        );
        const own = await w.ok('POST', '/v1/files/file', { channelId: w.betas.id, path: 'bob.txt' }, bob);
        assert.equal((await w.call('DELETE', `/v1/files/${own.id}`, undefined, bob)).statusCode, 403);
        assert.equal((await w.call('POST', '/v1/file', { type: 'folder', channelID: w.betas.id, path: 'X' }, bob)).statusCode, 403);
        assert.equal((await w.call('GET', `/v1/files/${own.id}`, undefined, bob)).statusCode, 200);
      });

      test('an internal user limited to some companies sees their channels only', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const betaFile = await w.ok('POST', '/v1/files/folder', { channelId: w.betas.id, path: 'B' });
        const { user, session } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.acme.id], 'lim@acme.test');
        assert.deepEqual(ids(await w.call('GET', '/v1/channels/files', undefined, session)), [w.adas.id]);
        assert.equal((await w.call('GET', `/v1/channels/files/${w.betas.id}`, undefined, session)).statusCode, 404);
        assert.equal((await w.call('GET', `/v1/files/${betaFile.id}`, undefined, session)).statusCode, 404);
        assert.equal((await w.call('DELETE', `/v1/files/${betaFile.id}`, undefined, session)).statusCode, 404);
        const made = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Mine' }, session);
        assert.deepEqual([made.creatorId, made.lastModifiedBy], [user.id, { id: user.id, object: 'internalUser' }]);
        // Deletes never cascade: a folder with anything inside (here a client's pending file) is refused, whoever deletes.
        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Mine/ada.txt' }, ada);
        const full = await w.call('DELETE', `/v1/files/${made.id}`, undefined, session);
        assert.deepEqual([full.statusCode, full.json()], [400, { code: 'bad_request', message: 'Folder is not empty', data: [] }]);
        assert.deepEqual(ids(await w.call('GET', `/v1/channels/files?memberId=${user.id}`)), [w.adas.id]);
      });

      test('the deprecated create: folders only, in its own shape', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const made = await w.ok('POST', '/v1/file', { type: 'folder', channelID: w.adas.id, path: 'Old', fileKey: '../../etc' });
        assert.deepEqual(made, {
          id: made.id,
          object: 'folder',
          createdAt: made.createdAt,
          updatedAt: made.createdAt,
          channelId: w.adas.id,
          fields: { path: 'Old', starred: false },
        });
        const problems = async (body: object) => {
          const res = await w.call('POST', '/v1/file', body);
          assert.equal(res.statusCode, 400, res.body);
          return res.json().data.map((p: { path: string }) => p.path);
        };
        assert.deepEqual(await problems({ type: 'link', channelID: w.adas.id, path: 'x' }), ['body.type']);
        assert.deepEqual(await problems({ type: 'folder', channelID: w.adas.id }), ['body.path']);
        assert.deepEqual(await problems({ type: 'folder', channelID: UNKNOWN, path: 'x' }), ['body.channelID']);
        assert.deepEqual(await problems({ type: 'folder', channelID: w.adas.id, path: 'Nope/x' }), ['body.path']);
        assert.equal((await auditEntries(h, w.ws.workspaceId)).filter((e) => e.event_type === 'folderCreated').length, 1);
      });

      test('listFiles: a channel with nothing in it is an empty page; an absent or deleted channel a 404, before any 400 of its token or path', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        for (const path of ['A', 'B', 'C']) await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path });
        const page = (channelId: string, query = '') => w.call('GET', `/v1/files?channelId=${channelId}${query}`);
        const first = await page(w.adas.id, '&limit=2');
        assert.deepEqual([first.statusCode, first.json().data.map((f: { path: string }) => f.path)], [200, ['C', 'B']]);
        const token = `&nextToken=${encodeURIComponent(first.json().nextToken)}`;
        const last = await page(w.adas.id, `&limit=2${token}`);
        assert.deepEqual(
          [last.statusCode, last.json().data.map((f: { path: string }) => f.path), last.json().nextToken],
          [200, ['A'], undefined],
        );
        const empty = await page(w.betas.id);
        assert.deepEqual([empty.statusCode, empty.json()], [200, { data: [] }], 'a channel with nothing in it');
        const refused = await page(w.betas.id, token);
        assert.deepEqual(
          [refused.statusCode, refused.json().data],
          [400, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]],
          'another channel’s token on a channel that is there',
        );
        const badPath = await page(w.adas.id, '&path=../x');
        assert.deepEqual([badPath.statusCode, badPath.json().data[0].path], [400, 'querystring.path']);
        const notFound = { code: 'not_found', message: 'File channel not found.', data: null };
        for (const [what, query] of [
          ['an unknown channel', ''],
          ['an unknown channel with another channel’s token', token],
          ['an unknown channel with a path refused', '&path=../x'],
        ]) {
          const res = await page(UNKNOWN, query);
          assert.deepEqual([res.statusCode, res.json()], [404, notFound], what);
        }
        assert.equal((await w.call('DELETE', `/v1/clients/${w.ada.id}`)).statusCode, 200);
        const gone = await page(w.adas.id, token);
        assert.deepEqual([gone.statusCode, gone.json()], [404, notFound], 'a channel gone with its client, with a token it gave');
      });

      test('another workspace’s channels and files are invisible (404 on get, list, download, change and delete)', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'F' });
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'a.txt' });
        await upload(h, file.uploadUrl, 'secret');
        const other = await populatedWorkspace(h, 'Other');
        const as = (method: Method, url: string, payload?: object) => w.call(method, url, payload, other.ws.apiKey);
        for (const [method, url, payload] of [
          ['GET', `/v1/channels/files/${w.adas.id}`],
          ['GET', `/v1/files?channelId=${w.adas.id}`],
          ['GET', `/v1/files/${file.id}`],
          ['GET', `/v1/files/${file.id}/download`],
          ['GET', `/v1/files/${file.id}/download-url`],
          ['DELETE', `/v1/files/${file.id}`],
          ['PUT', `/v1/files/${folder.id}/permissions/`, { clientPermissions: 'read_only' }],
        ] as [Method, string, object?][]) {
          assert.equal((await as(method, url, payload)).statusCode, 404, `${method} ${url}`);
        }
        assert.deepEqual(ids(await as('GET', '/v1/channels/files')), []);
        const into = await as('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'x' });
        assert.deepEqual([into.statusCode, into.json().data[0].path], [400, 'body.channelId']);
        const root = await as('PUT', '/v1/files/root/permissions/', { clientPermissions: 'read_only', channelId: w.adas.id });
        assert.deepEqual([root.statusCode, root.json().data[0].path], [400, 'body.channelId']);
        assert.equal((await w.ok('GET', `/v1/files/${file.id}`)).status, 'completed', 'untouched');
      });

      test('a channel goes with its client, and its content with the orphan sweep (quarantined first, deleted a quarantine later); leftovers of a killed process are swept at start', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const gone = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'ada.txt' });
        await upload(h, gone.uploadUrl, 'ada');
        const kept = await w.ok('POST', '/v1/files/file', { channelId: w.betas.id, path: 'beta.txt' });
        await upload(h, kept.uploadUrl, 'beta');
        await w.ok('DELETE', `/v1/clients/${w.ada.id}`);
        assert.equal((await w.call('GET', `/v1/channels/files/${w.adas.id}`)).statusCode, 404);
        const rows = await h.app.ctx.db.selectFrom('files').select('id').where('channel_id', '=', w.adas.id).execute();
        assert.deepEqual(rows, []);
        const content = h.app.ctx.files.store;
        const options = { graceMs: 60_000, quarantineMs: 86_400_000, namespaceSinceMs: 0 };
        const none = { adopted: 0, legacyRemoved: 0, quarantined: 0, restored: 0, deleted: 0 };
        assert.deepEqual(await sweepContent(h.app.ctx.database, content, options), none, 'content just written is spared');
        assert.deepEqual(await sweepContent(h.app.ctx.database, content, options, Date.now() + 61_000), { ...none, quarantined: 1 });
        assert.deepEqual((await stored(h)).objects, [`${w.ws.workspaceId}/${kept.id}`], 'a live file’s content stays');
        assert.equal((await w.call('GET', `/v1/files/${kept.id}/download`)).body, 'beta');
        const quarantined = async () => {
          const found: string[] = [];
          for await (const { key } of content.list('quarantine')) found.push(key);
          return found;
        };
        assert.deepEqual(await quarantined(), [`${w.ws.workspaceId}/${gone.id}`], 'kept a while, recoverable');
        assert.deepEqual(await sweepContent(h.app.ctx.database, content, options, Date.now() + 3_600_000), none, 'within the quarantine');
        assert.deepEqual(await sweepContent(h.app.ctx.database, content, options, Date.now() + 86_400_000 + 61_000), {
          ...none,
          deleted: 1,
        });
        assert.deepEqual([await quarantined(), (await stored(h)).objects], [[], [`${w.ws.workspaceId}/${kept.id}`]]);
        if (store !== 'local') return; // an S3 store's leftovers are unfinished multipart uploads (s3rver lists none)
        await mkdir(temporaryDir(h), { recursive: true });
        await writeFile(join(temporaryDir(h), 'left-over'), 'x');
        assert.equal(await content.sweep(60_000), 0, 'a recent one may be another process’s upload');
        assert.equal(await content.sweep(60_000, Date.now() + 61_000), 1);
        assert.deepEqual((await stored(h)).temporary, []);
      });

      test('an uploadUrl only for who may write there: a client never sees staff’s pending files, nor gets one where it may only read', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Shared', clientPermissions: 'read_only' });
        const staffs = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Shared/draft.pdf' });
        const done = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Shared/final.pdf' });
        assert.equal((await upload(h, done.uploadUrl, 'final')).statusCode, 200);
        // Unsent work is staff's: a pending file someone else created is neither listed nor found, for a client.
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}`, undefined, ada)), [done.id, folder.id]);
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}`)), [done.id, staffs.id, folder.id], 'staff see it');
        for (const url of [`/v1/files/${staffs.id}`, `/v1/files/${staffs.id}/download`, `/v1/files/${staffs.id}/download-url`]) {
          const res = await w.call('GET', url, undefined, ada);
          assert.deepEqual([res.statusCode, res.json()], [404, { code: 'not_found', message: 'File not found.', data: null }], url);
        }
        const completed = await w.ok('GET', `/v1/files/${done.id}`, undefined, ada);
        assert.deepEqual(['downloadUrl' in completed, 'uploadUrl' in completed], [true, false]);
        // A client's own pending file: its uploadUrl while clients may write where it is, none once they may only read.
        await w.ok('PUT', `/v1/files/${folder.id}/permissions/`, { clientPermissions: 'read_write' });
        const mine = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Shared/mine.txt' }, ada);
        assert.equal(typeof mine.uploadUrl, 'string');
        assert.equal(typeof (await w.ok('GET', `/v1/files/${mine.id}`, undefined, ada)).uploadUrl, 'string');
        await w.ok('PUT', `/v1/files/${folder.id}/permissions/`, { clientPermissions: 'read_only' });
        const readOnly = await w.ok('GET', `/v1/files/${mine.id}`, undefined, ada);
        assert.deepEqual([readOnly.status, 'uploadUrl' in readOnly], ['pending', false], 'no uploadUrl where clients may only read');
        assert.equal(typeof (await w.ok('GET', `/v1/files/${mine.id}`)).uploadUrl, 'string', 'staff may write anywhere they see');
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=Shared`, undefined, ada)), [mine.id, done.id]);
        // An upload URL seen while the file was pending does not replace its content once completed.
        const early = staffs.uploadUrl;
        assert.equal((await upload(h, early, 'v1')).statusCode, 200);
        const late = await upload(h, early, 'v2 from an old URL');
        assert.deepEqual([late.statusCode, late.json()], [409, { code: 'conflict', message: UPLOADED_ONCE, data: null }]);
        assert.equal((await w.call('GET', `/v1/files/${staffs.id}/download`)).body, 'v1');
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=Shared`, undefined, ada)), [
          mine.id,
          done.id,
          staffs.id,
        ]);
      });

      // Rule (issue 42, point 12): an uploadUrl a client session already holds stops working once clients may only read
      // where the file is (its folder, or the channel's root, made read-only, or the file moved into such a folder): the
      // folder is checked at upload time, a 403, nothing stored. Staff may write anywhere: their uploadUrl keeps working.
      test('a client’s uploadUrl is checked against the folder at upload time: made read-only since, a 403; staff’s still works', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const ada = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
        const readOnlyHere = { code: 'forbidden', message: 'Clients may only read in this folder.', data: null };
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Shared', clientPermissions: 'read_write' });
        const inFolder = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'Shared/mine.txt' }, ada);
        const atRoot = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'top.txt' }, ada);
        const moved = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'moved.txt' }, ada);
        await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: 'Locked', clientPermissions: 'read_only' });
        const staffsUrl = (await w.ok('GET', `/v1/files/${inFolder.id}`)).uploadUrl;
        await w.ok('PUT', `/v1/files/${folder.id}/permissions/`, { clientPermissions: 'read_only' });
        await w.ok('PATCH', `/v1/files/${moved.id}`, { path: 'Locked/moved.txt' });
        for (const file of [inFolder, moved]) {
          const refused = await upload(h, file.uploadUrl, 'after the folder was locked');
          assert.deepEqual([refused.statusCode, refused.json()], [403, readOnlyHere], file.path);
        }
        assert.equal((await upload(h, atRoot.uploadUrl, 'root still open')).statusCode, 200, 'the root is still read-write');
        const root = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'later.txt' }, ada);
        await w.ok('PUT', '/v1/files/root/permissions/', { clientPermissions: 'read_only', channelId: w.adas.id });
        const refusedAtRoot = await upload(h, root.uploadUrl, 'after the root was locked');
        assert.deepEqual([refusedAtRoot.statusCode, refusedAtRoot.json()], [403, readOnlyHere], 'the root made read-only');
        for (const id of [inFolder.id, moved.id, root.id]) {
          const file = await w.ok('GET', `/v1/files/${id}`);
          assert.deepEqual([file.status, await uploading(h, id)], ['pending', false], 'nothing claimed or stored');
        }
        assert.equal((await stored(h)).objects.length, 1, 'only the root file uploaded while it was open');
        // Staff's URL for the same file: staff may write where clients may only read.
        const bystaff = await upload(h, staffsUrl, 'staff may');
        assert.equal(bystaff.statusCode, 200, bystaff.body);
        assert.equal((await w.call('GET', `/v1/files/${inFolder.id}/download`)).body, 'staff may');
        // Open again, the client's URL works again (it is the folder that decides, at the time of the upload).
        await w.ok('PUT', '/v1/files/root/permissions/', { clientPermissions: 'read_write', channelId: w.adas.id });
        assert.equal((await upload(h, root.uploadUrl, 'open again')).statusCode, 200);
      });

      test('one upload at a time: a PUT while another runs is a 409; one cut short gives the file back to be uploaded', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'big.bin' });
        const socket = await uploadUnderWay(t, h, file.uploadUrl);
        await heldWithin(5000, 'the first upload is under way', () => uploading(h, file.id));
        const second = await upload(h, file.uploadUrl, 'meanwhile');
        assert.deepEqual(
          [second.statusCode, second.json()],
          [409, { code: 'conflict', message: 'An upload of this file’s content is under way.', data: null }],
        );
        socket.destroy();
        await heldWithin(5000, 'the first upload is given up', async () => !(await uploading(h, file.id)));
        await heldWithin(5000, 'the file may be uploaded again', async () => (await upload(h, file.uploadUrl, 'whole')).statusCode === 200);
        assert.equal((await w.call('GET', `/v1/files/${file.id}/download`)).body, 'whole');
      });

      test('signed URLs point at PORTAL_URL, whatever Host the request named', async (t) => {
        const h = await harnessOf(t, backend, { env: { PORTAL_URL: 'https://portal.example.com/' } });
        const w = await world(h);
        const poisoned = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };
        const asEvil = (method: Method, url: string, payload?: object) =>
          h.as(w.ws.apiKey, { method, url, headers: poisoned, ...(payload ? { payload } : {}) });
        const created = (await asEvil('POST', '/v1/files/file', { channelId: w.adas.id, path: 'a.txt' })).json();
        assert.match(created.uploadUrl, new RegExp(`^https://portal\\.example\\.com/files/uploads/${created.id}\\?`));
        assert.match(
          (await asEvil('GET', `/v1/files/${created.id}`)).json().uploadUrl,
          /^https:\/\/portal\.example\.com\/files\/uploads\//,
        );
        assert.equal((await upload(h, created.uploadUrl, 'x')).statusCode, 200);
        assert.match(
          (await asEvil('GET', `/v1/files/${created.id}`)).json().downloadUrl,
          /^https:\/\/portal\.example\.com\/files\/downloads\//,
        );
        assert.match((await asEvil('GET', `/v1/files/${created.id}/download-url`)).json().downloadUrl, /^https:\/\/portal\.example\.com\//);
      });

      test('signed URLs: expires and signature only as written (no leading zero, sign, padding or other spelling; each once); downloads private, no-store', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'a.txt' });
        const url = new URL(file.uploadUrl);
        const expires = String(url.searchParams.get('expires'));
        const signature = String(url.searchParams.get('signature'));
        const workspaceId = String(url.searchParams.get('workspaceId'));
        const query = (e: string, s: string, extra = '') =>
          `${url.pathname}?workspaceId=${workspaceId}&expires=${e}&signature=${s}${extra}`;
        // The signature's last character carries 2 unused bits: another character with the same 6-bit value's top 4 bits decodes alike.
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const last = alphabet.indexOf(signature[42]);
        const twin = `${signature.slice(0, 42)}${alphabet[last ^ 1]}`;
        assert.deepEqual(Buffer.from(twin, 'base64url'), Buffer.from(signature, 'base64url'), 'the same bytes');
        for (const [target, status, field] of [
          [query(`0${expires}`, signature), 400, 'query.expires'],
          [query(`%2B${expires}`, signature), 400, 'query.expires'],
          [query(`%20${expires}`, signature), 400, 'query.expires'],
          [query(`${expires}.0`, signature), 400, 'query.expires'],
          [query(expires, `${signature}%3D`), 400, 'query.signature'],
          [query(expires, signature, `&expires=${expires}`), 400, 'query.expires'],
          [query(expires, signature, `&signature=${signature}`), 400, 'query.signature'],
          [query(expires, twin), 403, undefined],
        ] as [string, number, string | undefined][]) {
          const res = await h.app.inject({ method: 'PUT', url: target, payload: 'x', headers: { 'content-type': 'text/plain' } });
          assert.equal(res.statusCode, status, `${target}: ${res.body}`);
          if (field) assert.equal(res.json().data[0].path, field, target);
        }
        assert.equal((await w.ok('GET', `/v1/files/${file.id}`)).status, 'pending', 'none of them uploaded');
        const put = await h.app.inject({
          method: 'PUT',
          url: query(expires, signature),
          payload: 'x',
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(put.statusCode, 200, put.body);
        const direct = await w.call('GET', `/v1/files/${file.id}/download`);
        assert.deepEqual([direct.statusCode, direct.headers['cache-control']], [200, 'private, no-store']);
        const { downloadUrl } = await w.ok('GET', `/v1/files/${file.id}/download-url`);
        const signed = await h.app.inject({ method: 'GET', url: local(downloadUrl) });
        assert.deepEqual([signed.statusCode, signed.headers['cache-control']], [200, 'private, no-store']);
      });

      test('names: bidirectional-control characters are a 400 naming the field; names are compared and stored in NFC', async (t) => {
        const h = await harnessOf(t, backend);
        const w = await world(h);
        const problem = async (url: string, body: object, field: string) => {
          const res = await w.call('POST', url, body);
          assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
          assert.deepEqual(res.json().data, [
            {
              path: field,
              message: 'may not hold bidirectional control characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)',
            },
          ]);
        };
        for (const mark of ['\u202e', '\u202a', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c']) {
          await problem('/v1/files/file', { channelId: w.adas.id, path: `invoice${mark}fdp.exe` }, 'body.path');
          await problem('/v1/files/folder', { channelId: w.adas.id, path: `Re${mark}ports` }, 'body.path');
          await problem('/v1/file', { type: 'folder', channelID: w.adas.id, path: `Old${mark}` }, 'body.path');
        }
        const listed = await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=a%E2%80%AEb`);
        assert.deepEqual([listed.statusCode, listed.json().data[0].path], [400, 'querystring.path']);
        assert.deepEqual((await w.ok('GET', `/v1/files?channelId=${w.adas.id}`)).data, [], 'nothing written');

        const composed = 'Caf\u00e9';
        const decomposed = 'Cafe\u0301';
        const folder = await w.ok('POST', '/v1/files/folder', { channelId: w.adas.id, path: decomposed });
        assert.deepEqual([folder.name, folder.path], [composed, composed], 'stored in NFC');
        const again = await w.call('POST', '/v1/files/folder', { channelId: w.adas.id, path: composed });
        assert.deepEqual([again.statusCode, again.json().code], [409, 'conflict'], 'the same path');
        const inside = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: `${composed}/menu.txt` });
        assert.equal(inside.path, `${composed}/menu.txt`);
        assert.deepEqual(ids(await w.call('GET', `/v1/files?channelId=${w.adas.id}&path=${encodeURIComponent(decomposed)}`)), [inside.id]);
      });

      test('an upload cut by a crash leaves no temporary content past the next periodic sweep', {
        skip: store !== 'local' && 'the local store’s temporary files',
      }, async (t) => {
        const h = await harnessOf(t, backend, { fileOrphanSweepMs: 50 });
        const w = await world(h);
        const dir = temporaryDir(h);
        await mkdir(dir, { recursive: true });
        // Left by a process killed mid-upload, two hours ago (after this app started and swept once).
        const old = join(dir, 'killed-upload');
        await writeFile(old, 'half');
        const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
        await utimes(old, twoHoursAgo, twoHoursAgo);
        await writeFile(join(dir, 'in-progress'), 'another process’s upload');
        await heldWithin(5000, 'the hourly sweep removes it', async () => !(await stored(h)).temporary.includes('killed-upload'));
        assert.deepEqual((await stored(h)).temporary, ['in-progress'], 'a recent one may be another process’s upload');
        const file = await w.ok('POST', '/v1/files/file', { channelId: w.adas.id, path: 'a.txt' });
        assert.equal((await upload(h, file.uploadUrl, 'kept')).statusCode, 200);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal((await w.call('GET', `/v1/files/${file.id}/download`)).body, 'kept', 'live content stays');
      });
    });
  }
}
