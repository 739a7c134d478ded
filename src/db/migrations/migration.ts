import type { Migration } from 'kysely';
import type { DialectName } from '../database.js';

/** A migration is built for the dialect it runs on (most ignore it: portable types are the default). */
export type MigrationFactory = (dialect: DialectName) => Migration;
