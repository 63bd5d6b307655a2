import { sql } from "drizzle-orm";
import { retryOnConflict } from "../../db/connection-errors.js";
import type { Database } from "../../db/database.js";
import type { Clock } from "../../util/clock.js";

/**
 * Rows one statement of a flush updates. On the embedded database every request waits for the
 * statement in front of it: a flush of 1,150 rows in one UPDATE held the only connection for
 * 110 ms at 100K memories (a context window's whole budget), a chunk of 100 holds it ~10 ms.
 */
const ROWS_PER_STATEMENT = 100;

/**
 * Access recording (R2) off the request path: ids are buffered and written once per window
 * (`access_count + n`, `last_accessed_at` = the clock's now), however many reads asked for them,
 * in statements of `rowsPerStatement` rows so that requests get the database in between.
 */
export class AccessRecorder {
  private pending = new Map<string, number>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly windowMs = 1000,
    private readonly rowsPerStatement = ROWS_PER_STATEMENT,
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
    const now = this.clock.now().toISOString();
    for (let start = 0; start < batch.length; start += this.rowsPerStatement)
      await this.write(batch.slice(start, start + this.rowsPerStatement), now);
  }

  private async write(chunk: { id: string; count: number }[], now: string): Promise<void> {
    // Rows are locked in id order first, so two flushes (or a flush and another writer taking rows
    // in id order) never wait on each other in a cycle; a deadlock with a writer that does not is
    // retried rather than losing the chunk's counts.
    await retryOnConflict(() =>
      this.db.execute(
        sql`WITH b AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS b(id uuid, count int)),
                 locked AS (SELECT m.id FROM memories m JOIN b ON b.id = m.id ORDER BY m.id FOR UPDATE OF m)
            UPDATE memories AS m SET access_count = m.access_count + b.count, last_accessed_at = ${now}::timestamptz
              FROM b, locked
             WHERE m.id = b.id AND locked.id = b.id`,
      ),
    );
  }
}
