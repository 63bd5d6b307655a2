import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../../db/database.js";
import { sha256Hex } from "../../util/hash.js";
import { type AnnBuildOptions, type AnnTarget, ensureHnswIndex, ensureIndex, HNSW_BUILD, indexState, quoteLiteral } from "./ann-index.js";

/**
 * When a user gets a vector index of their own. In the one index of every user, a large user's
 * search is a filtered walk of a graph mostly made of other users' vectors: on a real Postgres
 * with 1.1M memories, the top-10 of a user holding 100K of them was slow and found only 0.87-0.91
 * of the exact top-10 (`npm run bench -- --many-users`). An index holding only their vectors is
 * walked without a filter.
 */
export interface UserAnnPolicy {
  /** Embedded memories (of the configured model) from which a user gets an index; 0: never. */
  minMemories: number;
  /** At most this many users have one (the largest): every index on `memories` costs each insert a little and each plan a look. */
  maxIndexes: number;
}

export interface UserScope {
  appId: string;
  userId: string;
}

/** Every per-user index starts with this; the rest is a hash, so the name says nothing about the user. */
const PREFIX = "memories_user_ann_";
/** And every per-user word index with this. */
const WORDS_PREFIX = "memories_user_words_";

/** The index of one user's vectors of one model: the model, dimension, user and graph parameters, hashed. */
export function userAnnIndexName(target: AnnTarget, scope: UserScope): string {
  const hash = sha256Hex(
    [target.model, target.dimensions, scope.appId, scope.userId, `m=${HNSW_BUILD.m},ef_construction=${HNSW_BUILD.efConstruction}`].join(
      "\u0000",
    ),
  ).slice(0, 24);
  return `${PREFIX}${hash}`;
}

/**
 * The index of one user's words (GIN over `content_tsv`), beside their vector index. In the word
 * index of every user (keyed by user and word), a word's matches among a large user's memories are
 * found by intersecting the word's entries with all of the user's; in an index of that user's
 * words alone they are read directly, several times faster for a common word and far more for a
 * rare one (on a real Postgres, a user with 100K memories).
 */
export function userWordIndexName(scope: UserScope): string {
  return `${WORDS_PREFIX}${sha256Hex([scope.appId, scope.userId].join("\u0000")).slice(0, 24)}`;
}

/**
 * The predicate makes the planner take this index for exactly the user's searches: recall's
 * statement names the model, app and user as parameters, which an unnamed statement plans with
 * their values, and the smaller graph costs less than the shared one.
 */
const userPredicate = (target: AnnTarget, scope: UserScope) =>
  `embedding_model = ${quoteLiteral(target.model)} AND ${scopePredicate(scope)}`;

/** The user's rows: the predicate of both of their indexes (recall's statements name app and user as values too). */
const scopePredicate = (scope: UserScope) => `app_id = ${quoteLiteral(scope.appId)} AND user_id = ${quoteLiteral(scope.userId)}`;

export interface ReconcileReport {
  /** Vector indexes built. */
  built: string[];
  /** Word indexes built. */
  wordsBuilt: string[];
  /** Either kind. */
  dropped: string[];
  /** Users at or past the threshold whose index is not valid yet (a build running elsewhere, or one that failed). */
  pending: number;
}

/**
 * Brings the per-user indexes in line with who is large now: the `maxIndexes` users with the most
 * vectors of the model get one (and one of their words) once they reach `minMemories`, and keep it until they fall below
 * half of that (so a user hovering at the threshold is not built and dropped in turn). Every
 * other per-user index goes: an erased user's, a shrunk user's, another model's or dimension's.
 * Builds run one at a time, largest user first, concurrently with traffic; `db` should be a
 * connection of its own when `options.memory` is set (see {@link AnnBuildOptions}).
 */
export async function reconcileUserAnnIndexes(
  db: Database,
  target: AnnTarget,
  policy: UserAnnPolicy,
  options: AnnBuildOptions = {},
): Promise<ReconcileReport> {
  const report: ReconcileReport = { built: [], wordsBuilt: [], dropped: [], pending: 0 };
  const large =
    policy.minMemories > 0 && policy.maxIndexes > 0
      ? await queryRows<{ app_id: string; user_id: string; memories: number }>(
          db,
          sql`SELECT app_id, user_id, count(*)::int AS memories FROM memories WHERE embedding_model = ${target.model}
               GROUP BY app_id, user_id HAVING count(*) >= ${Math.ceil(policy.minMemories / 2)}
               ORDER BY count(*) DESC, app_id, user_id LIMIT ${policy.maxIndexes}`,
        )
      : [];
  const keep = new Set(
    large.flatMap((row) => {
      const scope = { appId: row.app_id, userId: row.user_id };
      return [userAnnIndexName(target, scope), userWordIndexName(scope)];
    }),
  );
  for (const name of await existingUserIndexes(db)) {
    if (keep.has(name)) continue;
    await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`));
    report.dropped.push(name);
  }
  for (const row of large) {
    if (row.memories < policy.minMemories) continue;
    const scope = { appId: row.app_id, userId: row.user_id };
    const name = userAnnIndexName(target, scope);
    if ((await indexState(db, name)) !== "valid") {
      if (await ensureHnswIndex(db, { name, dimensions: target.dimensions, predicate: userPredicate(target, scope) }, options))
        report.built.push(name);
      else report.pending++;
    }
    const words = userWordIndexName(scope);
    if ((await indexState(db, words)) === "valid") continue;
    if (await ensureIndex(db, words, `gin (content_tsv) WHERE ${scopePredicate(scope)}`, options)) report.wordsBuilt.push(words);
    else report.pending++;
  }
  return report;
}

/** Drops the user's indexes (after an erasure: their predicates name the user). */
export async function dropUserAnnIndex(db: Database, target: AnnTarget, scope: UserScope): Promise<void> {
  await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${userAnnIndexName(target, scope)}"`));
  await db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${userWordIndexName(scope)}"`));
}

async function existingUserIndexes(db: Database): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = 'memories'::regclass AND (starts_with(c.relname, ${PREFIX}) OR starts_with(c.relname, ${WORDS_PREFIX}))`,
  );
  return rows.map((row) => row.name);
}
