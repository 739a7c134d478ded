// The official SDK (its DefaultService methods, their paths, queries and bodies) against a listening server:
// every file operation it has is served, with a client session's token where a client may act, and answers
// in the shapes it declares (test/helpers/sdk-types.ts). The content goes to the uploadUrl create answers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient, createCompany, mintSession, sessionKey } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';
import { FILE_STORES } from '../../../../test/helpers/s3.js';
import { departures, sdkOperations } from '../../../../test/helpers/sdk-types.js';

for (const backend of BACKENDS) {
  for (const store of FILE_STORES) {
    describe(`files through the official SDK [${backend}, ${store} store]`, () => {
      test('the eleven file operations, each answer of the shape the SDK declares', async (t) => {
        const declared = sdkOperations();
        /** The answer, after checking it against the operation's declared type. */
        const holds = <T>(operation: string, answer: T): T => {
          const shape = declared.get(operation);
          assert.ok(shape, `the SDK has ${operation}`);
          assert.deepEqual(departures(answer, shape, new Set()), [], `${operation} answers as the SDK declares`);
          return answer;
        };
        const h = await adminHarness(t, backend, { fileStore: store });
        const ws = await h.workspace('Sdk');
        const app = await h.appKey(ws.workspaceId, '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11');
        const company = await createCompany(h, ws.apiKey, { name: 'Sdk Co' });
        const client = await createClient(h, ws.apiKey, { email: 'sdk@sdk.test', givenName: 'S', familyName: 'D', companyId: company.id });
        await h.app.listen({ port: 0, host: '127.0.0.1' });
        const address = h.app.server.address();
        assert.ok(address && typeof address === 'object');
        const base = `http://127.0.0.1:${address.port}`;
        // ASSEMBLY_ENV=local: the SDK sends the key as given (a session's key, `<workspace>/<app key>/<token id>`).
        process.env.ASSEMBLY_ENV = 'local';
        const { assemblyApi, OpenAPI } = await import('@assembly-js/node-sdk');
        OpenAPI.BASE = base;
        const session = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
        // The SDK keeps its key in a global (OpenAPI.HEADERS): each call sets it first.
        const staff = () => assemblyApi({ apiKey: ws.apiKey });
        const asClient = () => assemblyApi({ apiKey: sessionKey(ws.workspaceId, app.apiKey, session.tokenId) });

        const channel = holds(
          'createFileChannel',
          await staff().createFileChannel({ requestBody: { membershipType: 'individual', clientId: client.id } }),
        );
        assert.deepEqual([channel.clientId, channel.companyId, channel.memberIds], [client.id, company.id, [client.id]]);
        const channelId = channel.id as string;
        const listed = holds('listFileChannels', await asClient().listFileChannels({}));
        assert.deepEqual(
          listed.data?.map((c: { id?: string }) => c.id),
          [channelId],
          'the SDK sends clientId= and companyId= by default: empty filters',
        );
        assert.deepEqual(holds('retrieveFileChannel', await asClient().retrieveFileChannel({ id: channelId })), {
          ...channel,
          object: 'fileChannel',
        });

        const folder = holds(
          'createAFileDeprecated',
          await staff().createAFileDeprecated({ requestBody: { type: 'folder', channelID: channelId, path: 'Shared' } }),
        );
        assert.deepEqual(folder.fields, { path: 'Shared', starred: false });
        const link = holds(
          'createFile',
          await staff().createFile({ fileType: 'link', requestBody: { channelId, path: 'Shared/Site', linkUrl: 'https://example.com' } }),
        );
        assert.equal(link.linkUrl, 'https://example.com');
        // A client session uploads into its own channel: create, then PUT the bytes to the uploadUrl.
        h.clock.advance(1000);
        const file = holds(
          'createFile',
          await asClient().createFile({ fileType: 'file', requestBody: { channelId, path: 'Shared/hello.txt' } }),
        );
        assert.deepEqual([file.status, file.creatorId], ['pending', client.id]);
        const uploadUrl = (file as { uploadUrl?: string }).uploadUrl;
        // Signed URLs are built on PORTAL_URL (here its default, http://HOST:PORT): fetched on this test's port.
        assert.ok(uploadUrl?.startsWith(`${h.app.ctx.config.portalUrl}/files/uploads/`), uploadUrl);
        const onServer = (signed: string) => {
          const { pathname, search } = new URL(signed);
          return `${base}${pathname}${search}`;
        };
        const put = await fetch(onServer(uploadUrl as string), {
          method: 'PUT',
          body: 'hello from the SDK',
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(put.status, 200, await put.clone().text());

        const got = holds('retrieveFile', await asClient().retrieveFile({ id: file.id as string }));
        assert.deepEqual([got.status, got.size], ['completed', 18]);
        const files = holds('listFiles', await asClient().listFiles({ channelId, path: 'Shared' }));
        assert.deepEqual(
          files.data?.map((f: { id?: string }) => f.id),
          [file.id, link.id],
        );
        const { downloadUrl } = holds('retrieveDownloadUrlOfAFile', await asClient().retrieveDownloadUrlOfAFile({ id: file.id as string }));
        assert.equal(await (await fetch(onServer(downloadUrl as string))).text(), 'hello from the SDK');
        const content = holds('downloadAFile', await asClient().downloadAFile({ id: file.id as string }));
        assert.equal(String(content), 'hello from the SDK');

        holds(
          'putV1FilesIdPermissions',
          await staff().putV1FilesIdPermissions({ id: folder.id as string, requestBody: { clientPermissions: 'read_only' } }),
        );
        assert.equal((await staff().retrieveFile({ id: folder.id as string })).clientPermissions, 'read-only');
        await assert.rejects(
          asClient().createFile({ fileType: 'file', requestBody: { channelId, path: 'Shared/more.txt' } }),
          (error: { status: number }) => error.status === 403,
        );
        await assert.rejects(staff().deleteFile({ id: folder.id as string }), (error: { status: number; body: { message: string } }) => {
          assert.deepEqual([error.status, error.body.message], [400, 'Folder is not empty']);
          return true;
        });
        for (const id of [file.id, link.id, folder.id] as string[]) {
          assert.deepEqual(holds('deleteFile', await staff().deleteFile({ id })).deleted, true);
        }
      });
    });
  }
}
