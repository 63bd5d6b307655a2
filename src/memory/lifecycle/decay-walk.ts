import { type SQL, sql } from "drizzle-orm";

/**
 * Where a decay pass is, as the durable function saves it between steps: after a heap position
 * (page, line) of a walk in storage order, with the pages its next batch reads; or after the last
 * memory (creation time and id) of a walk through one user's memories, newest first.
 */
export type DecayCursor = { walk: "pages"; page: number; line: number; step: number } | { walk: "user"; createdAt: string; id: string };

/** What a batch's statement reports back about the rows it read, for the next cursor. */
export interface BatchReading {
  /** Rows read (in the scope or not, current or not). */
  scanned: number;
  /** The pages walk: the heap position of the last row read, `(page,line)`. */
  lastTid: string | null;
  /** The user walk: the last memory read. */
  lastMemory: { createdAt: string; id: string } | null;
  /** The table's length in pages when the batch ran. */
  tablePages: number;
}

/** The rows one batch reads, as the body of a CTE over `memories m`, and where the next batch starts. */
export interface DecaySlice {
  /** Selects `m.id`, `m.created_at`, `m.ctid` and the columns `columns` names, for the rows of this batch. */
  rows(columns: SQL): SQL;
  next(reading: BatchReading): DecayCursor | null;
}

/** A cursor as the durable step stores it. */
export function formatDecayCursor(cursor: DecayCursor | null): string | null {
  if (cursor === null) return null;
  return cursor.walk === "pages" ? `pages:${cursor.page}:${cursor.line}:${cursor.step}` : `user:${cursor.createdAt}|${cursor.id}`;
}

/** A stored cursor; one of another shape (an older version's memory id) starts the walk again, which a pass may do harmlessly. */
export function parseDecayCursor(text: string | null): DecayCursor | null {
  const pages = /^pages:(\d+):(\d+):(\d+)$/.exec(text ?? "");
  if (pages) return { walk: "pages", page: Number(pages[1]), line: Number(pages[2]), step: Math.max(1, Number(pages[3])) };
  const user = /^user:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)\|([0-9a-f-]{36})$/.exec(text ?? "");
  return user ? { walk: "user", createdAt: user[1] as string, id: user[2] as string } : null;
}

/** A row's creation time to the microsecond, as the user walk's cursor holds it. */
export const createdAtText = sql`to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The table's length in pages now, in SQL: where a walk in storage order ends. */
export const memoriesPagesSql = sql`(pg_relation_size('memories') / current_setting('block_size')::int)::int`;

/** About the most memories a heap page holds: the first batch of a storage-order walk reads `batchSize / this` pages. */
const DENSEST_PAGE = 50;
/** A batch's page count moves at most this factor from the last one's, towards `batchSize` rows. */
const STEP_CHANGE = 4;

/**
 * The rows the next batch of a pass reads, at most `batchSize` of them. A pass over one user (app
 * and user given) walks that user's memories newest first through their index on creation time, so
 * it reads only their rows (rows created at one instant are ordered by id, so none is skipped or
 * read twice at a boundary). Any other pass walks the table in storage order, a range of heap pages
 * per batch, so each page is read once and in order — an index walk in id order (random ids) read
 * a different page for nearly every row, twice a batch. The range is sized from the last batch's
 * density, so a batch stays near `batchSize` rows whatever the statistics say.
 */
export function nextDecaySlice(scope: { appId?: string; userId?: string }, cursor: DecayCursor | null, batchSize: number): DecaySlice {
  if (scope.appId !== undefined && scope.userId !== undefined) {
    const after =
      cursor?.walk === "user"
        ? sql`AND m.created_at <= ${cursor.createdAt}::timestamptz AND (m.created_at < ${cursor.createdAt}::timestamptz OR m.id < ${cursor.id}::uuid)`
        : sql``;
    return {
      rows: (columns) => sql`SELECT m.id, m.created_at, m.ctid, ${columns} FROM memories m
             WHERE m.app_id = ${scope.appId} AND m.user_id = ${scope.userId} AND m.expired_at IS NULL ${after}
             ORDER BY m.created_at DESC, m.id DESC LIMIT ${batchSize}`,
      next: ({ scanned, lastMemory }) => (scanned < batchSize || !lastMemory ? null : { walk: "user", ...lastMemory }),
    };
  }
  const from = cursor?.walk === "pages" ? cursor : { page: 0, line: 0, step: Math.max(1, Math.ceil(batchSize / DENSEST_PAGE)) };
  const end = from.page + from.step;
  return {
    rows: (columns) => sql`SELECT m.id, m.created_at, m.ctid, ${columns} FROM memories m
           WHERE m.ctid > ${`(${from.page},${from.line})`}::tid AND m.ctid < ${`(${end},0)`}::tid
           ORDER BY m.ctid LIMIT ${batchSize}`,
    next: ({ scanned, lastTid, tablePages }) => {
      const last = /^\((\d+),(\d+)\)$/.exec(lastTid ?? "");
      // The range held more rows than a batch: the next one starts after the last row read, on fewer pages.
      if (scanned >= batchSize && last)
        return { walk: "pages", page: Number(last[1]), line: Number(last[2]), step: Math.max(1, Math.floor(from.step / 2)) };
      if (end >= tablePages) return null;
      const density = Math.max(1, scanned) / from.step;
      const step = Math.round(Math.min(from.step * STEP_CHANGE, Math.max(from.step / STEP_CHANGE, batchSize / density)));
      return { walk: "pages", page: end, line: 0, step: Math.max(1, step) };
    },
  };
}
