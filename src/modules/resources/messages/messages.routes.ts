import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiPrincipalOf, rateLimitKeyOf } from '../../../lib/caller.js';
import { type EventStream, STREAM_SETTINGS } from '../../../lib/event-streams.js';
import type { RoutePolicy } from '../../../lib/policy.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { MAX_GROUP_MEMBERS, MessageChannel, MessageChannelCreate, MessageChannelListQuery } from '../../components/channels/index.js';
import {
  MAX_MESSAGE_LENGTH,
  Message,
  MessageCreate,
  MessageListQuery,
  MessageStreamHeaders,
  MessageStreamQuery,
} from './messages.schemas.js';
import * as service from './messages.service.js';

// Digits grouped by hand: toLocaleString at load would map the runtime's ICU data (5 MB of RSS at rest) for one number.
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

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

const { retryMs, heartbeatMs, lifetimeMs, perCaller } = STREAM_SETTINGS;

/** What GET /v1/messages/stream sends, as the OpenAPI document describes it (docs/api.md, "Messages as they are sent"). */
const STREAM_EVENTS =
  'Server-sent events (`text/event-stream`, UTF-8), each `id: <cursor>`, `event: <name>`, `data: <JSON>` and a blank line. ' +
  `The stream opens with \`retry: ${retryMs}\` (the reconnection delay asked of EventSource), then: ` +
  '`ready` (data `{}`, always first: the stream is live; its id is where a reconnection resumes, even before any message); ' +
  '`message.created` (data: the message exactly as `GET /v1/messages` answers it; one per message the caller sees, ' +
  'oldest first, in the order they committed, never twice); ' +
  '`reset` (data `{"reason": …}`: what was missed is not replayed — more than ' +
  `${thousands(service.MAX_REPLAY)} messages, or a position this database never reached —; read the channels ` +
  'again with `GET /v1/messages`; new messages follow). ' +
  `A comment line (\`: heartbeat\`) comes every ${heartbeatMs / 1000} s. The server ends a stream after ` +
  `${lifetimeMs / 60_000} minutes, and when it shuts down: reconnect (EventSource does, with Last-Event-ID) and nothing is lost.`;

const STREAM_DESCRIPTION =
  'An extension of the hosted API (not in the official SDK): the messages the caller sees, as they are sent, without ' +
  'polling. Every channel the caller sees, or one (`channelId`; a channel it does not see is a 404, as for `GET /v1/messages`); ' +
  'which channels it sees is checked again for each message (a client removed from a channel receives no more of it). ' +
  '**Resuming**: each event’s `id` is a cursor; `Last-Event-ID` (sent by EventSource when it reconnects) or `since` ' +
  '(the header wins) sends what was missed first, oldest first, then new messages, with nothing skipped or repeated; ' +
  'a cursor of another workspace, or altered, is a 400 naming its field. Without either, the stream starts from now. ' +
  "A person signed in to the portal opens it with its cookie (`new EventSource('/portal/{workspaceId}/v1/messages/stream')`). " +
  `At most ${perCaller} streams per caller (a key, or a person through any of its sessions) are open on one server at once: ` +
  `the next is a 429 \`rate_limit_exceeded\`. ${SEES}`;

/** Where the follower sends messages: the stream's events, named as docs/api.md lists them. */
function sinkOf(stream: EventStream, log: FastifyBaseLogger): service.MessageStreamSink {
  return {
    get closed() {
      return stream.closed;
    },
    ready: (cursor) => stream.send('ready', cursor, '{}'),
    message: (cursor, message) => stream.send('message.created', cursor, JSON.stringify(message)),
    reset: (cursor, reason) => stream.send('reset', cursor, JSON.stringify({ reason })),
    drained: () => stream.drained(),
    onClose: (handler) => stream.onClose(handler),
    fail(error) {
      // A read cut short by the stream's own end (the server closing) is no failure.
      if (!stream.closed) log.error({ err: error }, 'message stream: a read failed; the stream ends (the client resumes where it was)');
      stream.close();
    },
  };
}

/** Where a stream resumes: Last-Event-ID (EventSource's reconnection, whatever URL it reuses) wins over `since`. */
function resumptionOf(lastEventId: string | undefined, since: string | undefined): service.StreamResumption | undefined {
  if (lastEventId !== undefined && lastEventId !== '') return { cursor: lastEventId, field: 'headers.last-event-id' };
  return since === undefined ? undefined : { cursor: since, field: 'query.since' };
}

/** The events, as a body: a stream of text that ends when the server ends it. */
const EventText = Type.Unsafe<Readable>({ type: 'string', description: STREAM_EVENTS });

export default async function messageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;
  const { bus, streams, cursors } = app.ctx.events;

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
        summary: 'List message channels, newest first (or by their last message: the inbox)',
        description:
          `${SEES} \`orderBy=lastMessageDate\` orders them as an inbox: by \`lastMessageDate\`, newest first, then the ` +
          'channels without a message, newest created first (ties by id). Its nextToken is the last channel’s position in that ' +
          'order, so a channel appears once at most in a walk through the pages even while messages arrive; a channel that ' +
          'gets a message moves above the position, to the first page, where a new walk finds it. A nextToken is good for ' +
          'the order it was given in only (a 400 naming `query.nextToken` in the other).',
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
    async (request) => service.sendMessage(database, request.caller, request.body, bus),
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

  app.get(
    '/messages/stream',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'streamMessages',
        summary: 'Follow the messages of the channels the caller sees, as they are sent (server-sent events)',
        description: STREAM_DESCRIPTION,
        querystring: MessageStreamQuery,
        headers: MessageStreamHeaders,
        response: {
          200: { description: 'the events, as they come (below)', content: { 'text/event-stream': { schema: EventText } } },
          ...READ_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const stream = streams.open(rateLimitKeyOf(apiPrincipalOf(request.caller)));
      try {
        const sink = sinkOf(stream, request.log);
        const resume = resumptionOf(request.headers['last-event-id'], request.query.since);
        await service.followMessages(database, request.caller, request.query, resume, { bus, cursors }, sink);
      } catch (error) {
        stream.close();
        throw error;
      }
      if (request.method === 'HEAD') stream.close(); // its headers only: nothing holds the stream open
      return reply
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no') // nginx would otherwise hold events back in its buffer
        .send(stream.body);
    },
  );
}
