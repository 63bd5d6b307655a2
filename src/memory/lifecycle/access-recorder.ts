import { sql } from "drizzle-orm";
import { retryOnConflict } from "../../db/connection-errors.js";
import type { Database } from "../../db/database.js";
import type { Clock } from "../../util/clock.js";

/**
 * Access recording (R2) off the request path: ids are buffered and written in one UPDATE per
 * window (`access_count + n`, `last_accessed_at` = the clock's now), however many reads asked for them.
 */
export class AccessRecorder {
  private pending = new Map<string, number>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly windowMs = 1000,
  ) {}

  /** Resolves once the batch holding these ids has been written. */
  record(ids: string[]): Promise<void> {
    for (const id of ids) this.pending.set(id, (this.pending.get(id) ?? 0) + 1);
    this.flushing ??= new Promise<void>((resolve) => setTimeout(resolve, this.windowMs)).then(() => this.flush());
    return this.flushing;
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending].map(([id, count]) => ({ id, count }));
    this.pending = new Map();
    this.flushing = undefined;
    if (batch.length === 0) return;
    const now = this.clock.now().toISOString();
    // Rows are locked in id order first, so two flushes (or a flush and another writer taking rows
    // in id order) never wait on each other in a cycle; a deadlock with a writer that does not is
    // retried rather than losing the batch's counts.
    await retryOnConflict(() =>
      this.db.execute(
        sql`WITH b AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) AS b(id uuid, count int)),
                 locked AS (SELECT m.id FROM memories m JOIN b ON b.id = m.id ORDER BY m.id FOR UPDATE OF m)
            UPDATE memories AS m SET access_count = m.access_count + b.count, last_accessed_at = ${now}::timestamptz
              FROM b, locked
             WHERE m.id = b.id AND locked.id = b.id`,
      ),
    );
  }
}
