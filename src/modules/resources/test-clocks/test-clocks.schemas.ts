import { type Static, Type } from 'typebox';
import { Id, Timestamp } from '../../../lib/schemas.js';

/** Ten years: the most one advance moves a clock. */
export const MAX_ADVANCE_SECONDS = 315_360_000;

export const TestClock = Type.Object(
  {
    object: Type.Literal('testClock'),
    workspaceId: Id,
    time: Timestamp,
    aheadBySeconds: Type.Integer({ description: 'how far the clock is ahead of the server’s (whole seconds, rounded down)' }),
  },
  { additionalProperties: false, title: 'TestClock' },
);
export type TestClock = Static<typeof TestClock>;

export const TestClockAdvance = Type.Object(
  {
    to: Type.Optional(Type.String({ format: 'date-time', description: 'the time to move the clock to: later than its time now' })),
    bySeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_ADVANCE_SECONDS, description: 'or how many seconds to move it forward (at most ten years)' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1, title: 'TestClockAdvance' },
);
export type TestClockAdvance = Static<typeof TestClockAdvance>;
