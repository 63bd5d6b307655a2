import { and, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, ne, or, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { type MemoryType, memories } from "../db/schema/index.js";

/**
 * Which memories a read may see, written once from the column objects of `memories`. Each
 * predicate takes the table, or an alias of it, so the query builder and raw SQL share them:
 *
 * @example
 * // builder
 * db.select().from(memories).where(and(ownedBy(memories, scope), liveAt(memories, now)));
 * // raw SQL over the alias `m`: the columns render as "m"."expired_at" and so on
 * sql`SELECT ${m.id} FROM memories m WHERE ${visibleAt(m, scope, { now })}`;
 */
/** `memories` under another name, for a statement that reads the table twice or names it in raw SQL. */
export const memoriesAs = <Name extends string>(name: Name) => alias(memories, name);

/** `memories` aliased `m`, the name every raw statement of the memory store gives the table. */
export const m = memoriesAs("m");

/** The table or an alias of it: whose columns a predicate is written over. */
export type MemoryColumns = typeof memories | ReturnType<typeof memoriesAs>;

/** The user's rows: app and user. */
export const ownedBy = (t: MemoryColumns, scope: { appId: string; userId: string }): SQL =>
  and(eq(t.appId, scope.appId), eq(t.userId, scope.userId)) as SQL;

/** The system's current belief: not expired (a superseded or deleted version is). */
export const current = (t: MemoryColumns): SQL => isNull(t.expiredAt);

/** Nothing in the world ended it by `at`. */
export const notEndedAt = (t: MemoryColumns, at: Date): SQL => or(isNull(t.invalidAt), gt(t.invalidAt, at)) as SQL;

/** True in the world at `at`: begun, and not ended. */
export const trueAt = (t: MemoryColumns, at: Date): SQL => and(lte(t.validAt, at), notEndedAt(t, at)) as SQL;

/**
 * A live memory at `at`: the current belief, and not ended in the world. The condition most
 * reads of "the user's memories" mean (listing, the index, the facts an extractor is shown).
 */
export const liveAt = (t: MemoryColumns, at: Date): SQL => and(current(t), notEndedAt(t, at)) as SQL;

/** A version the history keeps for as-of reads: current, or replaced by a successor (never a deleted one). */
export const keptForAsOf = (t: MemoryColumns): SQL => or(isNull(t.expiredAt), isNotNull(t.supersededBy)) as SQL;

/** Not a trait whose trend dissolved: it no longer describes the user. */
export const notDissolved = (t: MemoryColumns): SQL => or(isNull(t.traitStage), ne(t.traitStage, "dissolved")) as SQL;

/** What recall and search filter by besides the user: the present or a past moment, types, a window of world time. */
export interface VisibilityFilters {
  /** The current time; what is valid is judged at `asOf` when given, else at `now`. */
  now: Date;
  /** The world as it was at this time. */
  asOf?: Date;
  types?: MemoryType[];
  /** Only memories whose `valid_at` falls in this window. */
  window?: { from?: Date; to?: Date };
}

/**
 * The memories a query may see: the user's, true at `now` (or at `asOf`, through the versions
 * kept for it), not dissolved, of `types`, valid within `window`.
 */
export function visibleAt(t: MemoryColumns, scope: { appId: string; userId: string }, filters: VisibilityFilters): SQL {
  const conditions: SQL[] = [ownedBy(t, scope), notDissolved(t)];
  if (filters.asOf) conditions.push(trueAt(t, filters.asOf), keptForAsOf(t));
  else conditions.push(current(t), trueAt(t, filters.now));
  if (filters.types && filters.types.length > 0) conditions.push(inArray(t.type, filters.types));
  if (filters.window?.from) conditions.push(gte(t.validAt, filters.window.from));
  if (filters.window?.to) conditions.push(lt(t.validAt, filters.window.to));
  return and(...conditions) as SQL;
}
