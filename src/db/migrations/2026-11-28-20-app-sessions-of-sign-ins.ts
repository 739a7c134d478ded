import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Issue 42 (points 3 and 10):
 * - an app session opened from the portal names the sign-in session that opened it (`sessions.sign_in_session_id`,
 *   null for the operator's and the QA surface's mints): it is refused once that sign-in has ended, whatever ended it;
 * - a sign-in session records whether it passed a second factor (`sign_in_sessions.second_factor`, 0/1), so that
 *   turning `staffMfaRequired` on steps down the staff sessions that did not (existing rows: 0, stepped down once).
 */
export const appSessionsOfSignIns: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema.alterTable('sessions').addColumn('sign_in_session_id', 'text').execute();
    await db.schema
      .alterTable('sign_in_sessions')
      .addColumn('second_factor', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
