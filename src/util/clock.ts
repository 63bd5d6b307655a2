/**
 * Where "now" comes from for everything the memory decides by time — validity, recency, retention,
 * decay, time windows — and for the times it records (created, accessed, expired). One clock per
 * runtime, passed in, never read from `Date` directly, and handed to SQL as a parameter rather than
 * `now()`, so the embedded and a real Postgres agree and a whole year can be simulated in a test.
 * Operational times (the executor's queue, sweeps, jobs, rate limits) stay on the system clock.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The system clock shifted by `offsetMs` (CLOCK_OFFSET: "the service started 60 days later"). */
export function offsetClock(offsetMs: number): Clock {
  return { now: () => new Date(Date.now() + offsetMs) };
}

/** A clock a simulation moves by hand. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date): void {
    this.current = at.getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
