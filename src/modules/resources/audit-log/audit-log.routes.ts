import { APPS_ONLY } from '../../../lib/policy.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { AuditEventCreate, AuditLogEntry, AuditLogListQuery } from './audit-log.schemas.js';
import * as service from './audit-log.service.js';

const tags = ['audit log'];

/** The audit log (contract §3): read newest first, and events recorded by apps. Client sessions get 404. */
export default async function auditLogRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/audit-logs',
    {
      schema: {
        tags,
        operationId: 'listAuditLogs',
        summary: 'List audit log entries, newest first',
        description:
          'An internal user limited to some companies reads the entries of those companies. actorRole, actorAgentId, apiKeyRef, ' +
          'isSuperAdminTriggered and the display helpers are stored but never answered.',
        querystring: AuditLogListQuery,
        response: { 200: Page(AuditLogEntry), ...READ_ERRORS },
      },
    },
    async (request) => service.listAuditLog(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/audit-logs',
    {
      config: { policy: APPS_ONLY },
      schema: {
        tags,
        operationId: 'createAuditLog',
        summary: 'Record an event: a custom one, or a session’s start or end',
        description:
          'A custom eventType is recorded as customEvent with the name in context.customEventType. sessionStarted first closes the ' +
          'actor’s open session with a synthetic sessionEnded (source system) at lastActivityAt; sessionEnded is dated lastActivityAt. ' +
          'An end-user session records events as its own user only (another `actorId` is a 403: an audit trail is never written in ' +
          'someone else’s name); keys and bearer tokens, which apps use to report their users, may name any client or internal user.',
        body: AuditEventCreate,
        response: { 200: AuditLogEntry, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createAuditEvent(database, request.caller, request.body),
  );
}
