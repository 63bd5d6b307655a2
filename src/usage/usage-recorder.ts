import type { Database } from "../db/database.js";
import { recordUsage, type UsageRecord } from "./usage-store.js";

/**
 * Requests' query usage written in batches: what arrives while a batch is being written goes
 * together in the next, one transaction per user instead of one per request (8 clients searching
 * on PGlite wrote 8 transactions of 5 statements for every 8 answers). Nothing waits for a timer,
 * so a crash loses no more than the writes already queued behind the database would have lost.
 *
 * Each batch is written from the context of the request that opened it (its first record), which
 * waits for it like every other request in it: on Workers that request's connection writes it.
 */
export class UsageRecorder {
  private open: { records: UsageRecord[]; written: Promise<void> } | undefined;
  /** The last batch's write, settled or not: the next one starts after it. */
  private previous: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Database) {}

  /** Resolves once the batch holding these records has been written (rejects if that write failed). */
  record(records: UsageRecord[]): Promise<void> {
    if (!this.open) {
      const batch: UsageRecord[] = [];
      const written = this.previous.then(() => {
        if (this.open?.records === batch) this.open = undefined;
        return recordUsage(this.db, batch);
      });
      this.open = { records: batch, written };
      this.previous = written.catch(() => undefined);
    }
    this.open.records.push(...records);
    return this.open.written;
  }
}
