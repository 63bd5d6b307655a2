import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import type { Clock } from "../../util/clock.js";
import { memoriesLockedInIdOrder } from "../row-lock-order.js";

/**
 * Rows one statement of a flush updates. On the embedded database every request waits for the
 * statement in front of it, so a flush is cut into statements that each hold the connection briefly.
 */
const ROWS_PER_STATEMENT = 100;

/** First pause before rows another transaction held are tried again; it doubles up to the window. */
const RETRY_FIRST_MS = 20;

type Counted = { id: string; count: number };

/**
 * Access recording off the request path: ids are buffered and written once per window
 * (`access_count + n`, `last_accessed_at` = the clock's now), however many reads asked for them,
 * in statements of `rowsPerStatement` rows so that requests get the database in between.
 *
 * A flush never waits for a row lock: rows are locked in id order (row-lock-order) with
 * `SKIP LOCKED`, and the counts of rows another transaction holds (a consolidation, a decay batch)
 * are written again after a pause, until every count of the flush is in. So the recorder, which
 * runs beside every writer of memories, can never be one side of a deadlock, and loses no count;
 * rows deleted meanwhile (erased, purged) are dropped.
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

  /** Resolves once the counts of these ids have been written. */
  record(ids: string[]): Promise<void> {
    for (const id of ids) this.pending.set(id, (this.pending.get(id) ?? 0) + 1);
    this.flushing ??= new Promise<void>((resolve) => setTimeout(resolve, this.windowMs)).then(() => this.flush());
    return this.flushing;
  }

  private async flush(): Promise<void> {
    let batch: Counted[] = [...this.pending].map(([id, count]) => ({ id, count }));
    this.pending = new Map();
    this.flushing = undefined;
    const now = this.clock.now().toISOString();
    for (let pauseMs = RETRY_FIRST_MS; batch.length > 0; pauseMs = Math.min(2 * pauseMs, Math.max(this.windowMs, RETRY_FIRST_MS))) {
      const held: Counted[] = [];
      for (let start = 0; start < batch.length; start += this.rowsPerStatement)
        held.push(...(await this.write(batch.slice(start, start + this.rowsPerStatement), now)));
      batch = held;
      if (batch.length > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  /** Adds the counts of the rows it could lock; returns those of rows that exist but were held by another transaction. */
  private async write(chunk: Counted[], now: string): Promise<Counted[]> {
    const held = await queryRows<Counted>(
      this.db,
      sql`WITH b AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS b(id uuid, count int)),
               written AS (
                 UPDATE memories AS m SET access_count = m.access_count + b.count, last_accessed_at = ${now}::timestamptz
                   FROM b, ${memoriesLockedInIdOrder(sql`m.id IN (SELECT id FROM b)`, { skipLocked: true })}
                  WHERE m.id = b.id AND locked.id = b.id
                 RETURNING m.id)
          SELECT b.id, b.count FROM b
           WHERE NOT EXISTS (SELECT 1 FROM written w WHERE w.id = b.id) AND EXISTS (SELECT 1 FROM memories m WHERE m.id = b.id)`,
    );
    return held.map((row) => ({ id: row.id, count: Number(row.count) }));
  }
}
