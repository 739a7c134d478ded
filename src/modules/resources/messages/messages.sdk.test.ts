// The official SDK (its DefaultService methods, their paths, queries and bodies) against a listening server:
// every message operation it has is served, and answers in the shapes it declares.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient, createCompany } from '../../../../test/helpers/factories.js';
import { BACKENDS, harness } from '../../../../test/helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`messages through the official SDK [${backend}]`, () => {
    test('createMessageChannel, listMessageChannels (its default empty clientId), retrieveMessageChannel, sendMessage, listMessages', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace('Sdk');
      const company = await createCompany(h, ws.apiKey, { name: 'Sdk Co' });
      const client = await createClient(h, ws.apiKey, { email: 'sdk@sdk.test', givenName: 'S', familyName: 'D', companyId: company.id });
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const address = h.app.server.address();
      assert.ok(address && typeof address === 'object');
      // ASSEMBLY_ENV=local: the SDK sends the key as given (no session token to decrypt).
      process.env.ASSEMBLY_ENV = 'local';
      const { assemblyApi, OpenAPI } = await import('@assembly-js/node-sdk');
      OpenAPI.BASE = `http://127.0.0.1:${address.port}`;
      const sdk = assemblyApi({ apiKey: ws.apiKey });

      const channel = await sdk.createMessageChannel({ requestBody: { membershipType: 'individual', clientId: client.id } });
      assert.deepEqual(
        [channel.object, channel.clientId, channel.companyId, channel.lastMessageDate],
        ['messageChannel', client.id, company.id, undefined],
      );
      const listed = await sdk.listMessageChannels({});
      assert.deepEqual(
        listed.data?.map((c: { id?: string }) => c.id),
        [channel.id],
        'the SDK sends clientId= by default: an empty filter',
      );
      assert.deepEqual((await sdk.listMessageChannels({ membershipType: 'company' })).data, []);
      assert.deepEqual(await sdk.retrieveMessageChannel({ id: channel.id as string }), channel);
      h.clock.advance(1000);
      const message = await sdk.sendMessage({
        requestBody: { channelId: channel.id as string, text: 'Hi from the SDK', senderId: client.id },
      });
      assert.deepEqual(
        [message.object, message.senderId, message.text, message.isAttachmentIncluded],
        ['message', client.id, 'Hi from the SDK', false],
      );
      const messages = await sdk.listMessages({ channelId: channel.id as string });
      assert.deepEqual(messages, { data: [message] });
      assert.equal((await sdk.retrieveMessageChannel({ id: channel.id as string })).lastMessageDate, message.createdAt);
      await assert.rejects(
        sdk.sendMessage({ requestBody: { channelId: channel.id as string, text: 'no sender' } }),
        (error: { status: number; body: { data: unknown } }) => {
          assert.equal(error.status, 400);
          assert.deepEqual(
            (error.body.data as { path: string }[]).map((p) => p.path),
            ['body.senderId'],
          );
          return true;
        },
      );
    });
  });
}
