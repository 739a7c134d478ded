// What every test helper shares, in a file of its own so that the harness and the factories need not import each other.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Clock } from '../../src/lib/clock.js';

/** Where a TestClock starts: noon UTC. */
export const NOON = Date.parse('2026-01-15T12:00:00.000Z');

/** A settable clock: tests move time instead of sleeping. */
export class TestClock implements Clock {
  constructor(public ms = NOON) {}
  now() {
    return this.ms;
  }
  advance(ms: number) {
    this.ms += ms;
  }
}

export interface Harness {
  app: FastifyInstance;
  clock: TestClock;
  databaseUrl: string;
  /** PORTAL_ADMIN_TOKEN, when the admin surface is on (adminHarness). */
  adminToken: string | undefined;
  /** A workspace with its first (workspace-kind) key; `sandbox`: with a test clock. */
  workspace(name?: string, dailyQuota?: number, sandbox?: boolean): Promise<{ workspaceId: string; apiKeyId: string; apiKey: string }>;
  appKey(workspaceId: string, appId: string): Promise<{ apiKeyId: string; apiKey: string }>;
  /** `app.inject` with the key in X-API-KEY. */
  as(apiKey: string, options: InjectOptions): Promise<LightMyRequestResponse>;
}
