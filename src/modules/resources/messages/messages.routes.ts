import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { MAX_GROUP_MEMBERS, MessageChannel, MessageChannelCreate, MessageChannelListQuery } from '../../components/channels/index.js';
import { MAX_MESSAGE_LENGTH, Message, MessageCreate, MessageListQuery } from './messages.schemas.js';
import * as service from './messages.service.js';

/** A client session reads the channels it belongs to; creating one is staff's (403 for it). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
/** A client session sends messages, as itself, in the channels it belongs to. */
const CLIENT_SENDS: RoutePolicy = { clientSession: 'write' };
/**
 * Deleting a channel ends its whole history for everyone in it: an admin's (keys, bearer tokens, admin sessions),
 * as deleting a client or a company is; staff and client sessions get a 403.
 */
const ADMINS_DELETE: RoutePolicy = { clientSession: 'read', staff: false };
const tags = ['messages'];

const SEES =
  'A client session sees the channels it belongs to (its individual channels, the groups that list it, its companies’ channels); ' +
  'an internal user limited to some companies sees those companies’ channels only.';

export default async function messageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.post(
    '/message-channels',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'createMessageChannel',
        summary: 'Create a message channel',
        description:
          'individual: `clientId` (or the deprecated `membershipEntityId`); group: `memberIds`, clients of one company ' +
          `(1–${MAX_GROUP_MEMBERS}); company: \`companyId\` (or \`membershipEntityId\`). \`companyId\` chooses the company when a ` +
          'client has several, and must then be one of theirs. Every failing field is named in one 400. Records messageChannelCreated.',
        body: MessageChannelCreate,
        response: { 200: MessageChannel, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createChannel(database, request.caller, request.body),
  );

  app.get(
    '/message-channels',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listMessageChannels',
        summary: 'List message channels, newest first',
        description: SEES,
        querystring: MessageChannelListQuery,
        response: { 200: Page(MessageChannel), ...READ_ERRORS },
      },
    },
    async (request) => service.listChannels(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/message-channels/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveMessageChannel',
        summary: 'Retrieve a message channel',
        description: SEES,
        params: IdParams,
        response: { 200: MessageChannel, ...READ_ERRORS },
      },
    },
    async (request) => service.getChannel(database, request.caller, request.params.id),
  );

  app.delete(
    '/message-channels/:id',
    {
      config: { policy: ADMINS_DELETE },
      schema: {
        tags,
        operationId: 'deleteMessageChannel',
        summary: 'Delete a message channel and its messages: messageChannelDeleted',
        description:
          'The channel, its members and every message in it go together, in one transaction; afterwards the channel is a 404 ' +
          '(retrieving it, listing its messages, sending to it: a 400 naming `body.channelId`). Records messageChannelDeleted ' +
          'with the channel as it was and `messageCount`. Who may: keys, bearer tokens and admin sessions (an admin limited to ' +
          'some companies, the channels of those companies; others are a 404); a staff session or a client session gets a 403. ' +
          'Nothing else refers to a message (messages carry no attachments); the messageSent entries of the audit log stay.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteChannel(database, request.caller, request.params.id),
  );

  app.post(
    '/messages',
    {
      config: { policy: CLIENT_SENDS },
      schema: {
        tags,
        operationId: 'sendMessage',
        summary: 'Send a message in a channel',
        description:
          `Text of 1–${MAX_MESSAGE_LENGTH} characters, not only white space. The sender (\`senderId\`) must belong to the channel: ` +
          'one of its clients, or an internal user who sees its company. A session (client or internal user) acts as its own user: ' +
          'it sends as itself, and a `senderId` naming anyone else is a 403 `forbidden`. An API key or bearer token has no user of ' +
          'its own and may name any member (apps act for their users); without `senderId` it is a 400 naming `body.senderId`. ' +
          'Moves the channel’s lastMessageDate and records messageSent.',
        body: MessageCreate,
        response: { 200: Message, ...WRITE_ERRORS },
      },
    },
    async (request) => service.sendMessage(database, request.caller, request.body),
  );

  app.get(
    '/messages',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listMessages',
        summary: 'List the messages of a channel, newest first',
        description: `A channel the caller does not see is a 404. ${SEES}`,
        querystring: MessageListQuery,
        response: { 200: Page(Message), ...READ_ERRORS },
      },
    },
    async (request) => service.listMessages(database, request.caller, request.query, pageTokens),
  );
}
