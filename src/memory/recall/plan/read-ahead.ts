import type { Database } from "../../../db/database.js";
import type { RetentionClock } from "../../lifecycle/retention.js";
import type { SourceRef } from "../../provenance.js";
import type { QueryVector } from "../engines/recall-index.js";
import { type LaterStatement, type LaterStatementOptions, laterStatements, type StatementAnchor } from "../later-statements.js";
import { type RecalledMemory, sourceTurns } from "../recalled-rows.js";
import type { StatementReading } from "../speaker-statements.js";

/** A turn among recall's best hits, whose next turn in its session a context window brings along. */
export interface TurnAnchor {
  id: string;
  sessionId: string;
  seq: number;
}

/** What a context window reads past the ranking; a composed plan reads it in the same statement. */
export interface WindowReads {
  /** How many of the best turn hits bring the turn after them (CONTEXT_FOLLOWING_TURNS). */
  following: number;
  /** The later statements of the window's first `count` statements (CONTEXT_LATER_SHARE). */
  laterStatements?: { count: number } & Omit<LaterStatementOptions, "now">;
  /** The turns the window's first `count` facts came from (CONTEXT_SOURCE_TURNS). */
  sourceTurns?: number;
  /**
   * The asker's own statements the window reads first (CONTEXT_ASKER_STATEMENTS): how many, and
   * the vector they are nearest to (the question as a statement: `questionAsStatement`), with the
   * question's own vector besides when both rank them (CONTEXT_ASKER_CENTRED).
   */
  ownStatements?: { count: number; vector: QueryVector | undefined; question?: QueryVector | undefined; reading: StatementReading };
}

/**
 * How many candidates, first by fused rank, a plan reads ahead for a window that picks `count` of
 * them. The window picks in its own order, which is the ranking's reweighed (superseded and
 * off-topic assistant turns sink, sessions spread, a question's time lifts its span:
 * docs/context.md), so the first `count` it picks are usually among the first few times `count`
 * by rank; one that is not is read when picked (`laterStatementsOf`, `sourceTurnsOf`). The same
 * holds for the asker's own statements, the first `count` of their candidates that state something.
 */
export const readAheadFor = (count: number): number => (count > 0 ? Math.max(4 * count, count + 8) : 0);

/** Later statements a plan read ahead: with which options, for which statements (and past which moment, in ms), and what it found. */
export interface LaterAhead {
  options: LaterStatementOptions;
  considered: ReadonlyMap<string, number>;
  found: ReadonlyMap<string, LaterStatement[]>;
}

/** Source turns a plan read ahead: for which facts, and what it found. */
export interface SourcesAhead {
  considered: ReadonlySet<string>;
  found: ReadonlyMap<string, RecalledMemory[]>;
}

type Scope = { appId: string; userId: string };

/**
 * `laterStatements` for the statements a window picks, from what was read ahead where it covers
 * them (the same statement, past the same moment, with the same options), else from the database.
 */
export function laterStatementsOf(db: Pick<Database, "execute">, scope: Scope, ahead?: LaterAhead) {
  return async (statements: readonly StatementAnchor[], options: LaterStatementOptions): Promise<Map<string, LaterStatement[]>> => {
    const same =
      ahead !== undefined &&
      ahead.options.perStatement === options.perStatement &&
      ahead.options.minSimilarity === options.minSimilarity &&
      ahead.options.byName === options.byName &&
      ahead.options.inQuestions === options.inQuestions &&
      ahead.options.now.getTime() === options.now.getTime();
    const covered = (statement: StatementAnchor) => same && ahead.considered.get(statement.id) === statement.after.getTime();
    const found = new Map<string, LaterStatement[]>();
    for (const statement of statements) {
      const later = covered(statement) ? ahead?.found.get(statement.id) : undefined;
      if (later) found.set(statement.id, later);
    }
    const missing = statements.filter((statement) => !covered(statement));
    if (missing.length > 0) for (const [id, later] of await laterStatements(db, scope, missing, options)) found.set(id, later);
    return found;
  };
}

/** `sourceTurns` for the facts a window picks, from what was read ahead where it covers them, else from the database. */
export function sourceTurnsOf(db: Database, scope: Scope, clock: RetentionClock, ahead?: SourcesAhead) {
  return async (facts: readonly { id: string; sources: readonly SourceRef[] }[]): Promise<Map<string, RecalledMemory[]>> => {
    const found = new Map<string, RecalledMemory[]>();
    for (const fact of facts) {
      const turns = ahead?.considered.has(fact.id) ? ahead.found.get(fact.id) : undefined;
      if (turns) found.set(fact.id, turns);
    }
    const missing = facts.filter((fact) => !ahead?.considered.has(fact.id));
    if (missing.length > 0) for (const [id, turns] of await sourceTurns(db, scope, missing, clock)) found.set(id, turns);
    return found;
  };
}
