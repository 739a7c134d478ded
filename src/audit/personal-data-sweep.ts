import type { FastifyBaseLogger } from 'fastify';
import type { DbHandle } from '../db/database.js';
import { LoopWorker } from '../lib/background-loop.js';
import type { Clock } from '../lib/clock.js';
import { blankPersonalDataBefore } from './audit-trail.repository.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * PORTAL_AUDIT_PII_DAYS: the audit log's ip and User-Agent are personal data, blanked once older than that
 * many days. A round at start, then every `pollMs` (hourly); several processes blanking the same entries
 * do nothing twice (an entry already blank is not touched).
 */
export class PersonalDataSweep extends LoopWorker {
  constructor(
    private readonly db: DbHandle,
    private readonly clock: Clock,
    private readonly days: number,
    private readonly log: FastifyBaseLogger,
    pollMs = HOUR_MS,
  ) {
    super({ pollMs, maxSteps: 1, onError: (error) => log.error({ err: error }, 'audit log: blanking personal data failed') });
  }

  protected async step(): Promise<boolean> {
    const blanked = await blankPersonalDataBefore(this.db, this.clock.now() - this.days * DAY_MS);
    if (blanked > 0) this.log.info({ blanked, days: this.days }, 'audit log: personal data past PORTAL_AUDIT_PII_DAYS blanked');
    return false; // one sweep per round
  }
}
