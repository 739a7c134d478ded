import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { ADMIN_ERRORS, ADMIN_WRITE_ERRORS, adminDoc, READ_ERRORS, WorkspaceParams, WRITE_ERRORS } from '../../../lib/schemas.js';
import { TestClock, TestClockAdvance } from './test-clocks.schemas.js';
import * as service from './test-clocks.service.js';

const tags = ['test clocks'];
/** Keys, bearer tokens and admins move a sandbox's time (staff read it, and get 403 on a move); client sessions 404. */
const ADMINS_MOVE: RoutePolicy = { staff: false };
const ABOUT =
  'A sandbox workspace (created with sandbox: true) has a test clock: its time is the server’s plus how far the clock was moved, ' +
  'and it keeps running; staff read it, keys, bearer tokens and admins move it. Every time the service reads for the workspace follows it: timestamps, subscriptions’ periods, invoices’ ' +
  'due dates and charges, retries of failed charges, the expiry of session and bearer tokens, the daily quota’s day. A production ' +
  'workspace has no clock (404).';
const ADVANCE =
  'Exactly one of `to` (later than the clock’s time: a clock never moves back, 400) and `bySeconds`, at most ten years. What ' +
  'falls due meanwhile runs before the answer, in order and each at its own time (periods billed, invoices charged, failed ' +
  'charges retried); as Stripe’s test clocks, without waiting.';

export default async function testClockRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock } = app.ctx;
  const { processor } = app.ctx.billing;
  app.get(
    '/test-clock',
    {
      schema: {
        tags,
        operationId: 'retrieveTestClock',
        summary: 'The sandbox’s test clock',
        description: ABOUT,
        response: { 200: TestClock, ...READ_ERRORS },
      },
    },
    async (request) => service.getTestClock(database, request.caller, clock.now()),
  );
  app.post(
    '/test-clock/advance',
    {
      config: { policy: ADMINS_MOVE },
      schema: {
        tags,
        operationId: 'advanceTestClock',
        summary: 'Move the sandbox’s test clock forward',
        description: `${ADVANCE} ${ABOUT}`,
        body: TestClockAdvance,
        response: { 200: TestClock, ...WRITE_ERRORS },
      },
    },
    async (request) => service.advanceTestClock(database, processor, request.caller, request.body, clock.now()),
  );
}

/** The operator's view and move of a sandbox's clock (as `portal test-clock`). */
export async function testClockAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock } = app.ctx;
  const { processor } = app.ctx.billing;
  app.get(
    '/workspaces/:workspaceId/test-clock',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminRetrieveTestClock',
        summary: 'A sandbox’s test clock',
        description: ABOUT,
        params: WorkspaceParams,
        response: { 200: TestClock, ...ADMIN_ERRORS },
      },
    },
    async (request) => service.getTestClock(database, request.caller, clock.now()),
  );
  app.post(
    '/workspaces/:workspaceId/test-clock/advance',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminAdvanceTestClock',
        summary: 'Move a sandbox’s test clock forward',
        description: `${ADVANCE} As \`portal test-clock advance\`.`,
        params: WorkspaceParams,
        body: TestClockAdvance,
        response: { 200: TestClock, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.advanceTestClock(database, processor, request.caller, request.body, clock.now()),
  );
}
