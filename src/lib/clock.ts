/** Time source, injectable so tests can cross UTC midnight or expire tokens without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const isoAt = (ms: number) => new Date(ms).toISOString();
