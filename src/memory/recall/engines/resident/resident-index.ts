import type { RankedHit } from "../../fusion.js";
import type { RecallIndex, RecallRequest } from "../recall-index.js";
import { binaryCandidates } from "../sql-binary.js";
import type { ResidentMemories } from "./resident-memories.js";
import type { ResidentRow } from "./resident-slots.js";

/** The vector and text channels' engines over one deployment's resident copies. */
export interface ResidentIndexes {
  vectors: RecallIndex;
  words: RecallIndex;
}

/**
 * The resident engine (embedded): each queried user's memories held in this process, answering
 * both channels of a query about the present. Undefined (the SQL engines answer) for a question
 * about the past or a window of time (rows the copy does not hold, or would scan in vain), for a
 * vector of another model, and while the user's copy loads or when it is too large.
 *
 * Both channels of one recall share one read of the change log: the first to ask draws the
 * recall's ticket (`ResidentMemories.ticket`), and a read that starts after it serves both.
 *
 * @example
 * const { vectors, words } = residentIndexes(new ResidentMemories({ model, dimensions, maxBytes }), 0.3);
 */
export function residentIndexes(resident: ResidentMemories, minTextCoverage = 0): ResidentIndexes {
  const tickets = new WeakMap<RecallRequest, number>();
  const scopeOf = (request: RecallRequest) => {
    if (request.asOf || request.window) return undefined;
    let readAfter = tickets.get(request);
    if (readAfter === undefined) {
      readAfter = resident.ticket();
      tickets.set(request, readAfter);
    }
    return {
      appId: request.appId,
      userId: request.userId,
      now: request.now,
      ...(request.types ? { types: request.types } : {}),
      readAfter,
    };
  };
  return {
    vectors: {
      name: "resident-vectors",
      async rank(request) {
        const vector = await request.vector;
        const scope = scopeOf(request);
        if (!scope || !vector || vector.annDimensions || vector.model !== resident.model) return undefined;
        const hits = await resident.nearest(request.db, { ...scope, values: vector.values }, binaryCandidates(request.pool), request.pool);
        return hits && { hits: hits.map((hit) => rankedHit(hit, hit.rank, { similarity: hit.similarity })), approximate: true };
      },
    },
    words: {
      name: "resident-words",
      async rank(request) {
        const scope = scopeOf(request);
        if (!scope) return undefined;
        const hits = await resident.matching(request.db, { ...scope, lexemes: await request.lexemes() }, minTextCoverage, request.pool);
        return hits && { hits: hits.map((hit, index) => rankedHit(hit, index + 1, { coverage: hit.coverage })) };
      },
    },
  };
}

/** A resident memory as a channel's hit, with the signal it was found by. */
const rankedHit = (row: ResidentRow, rank: number, signal: { similarity: number } | { coverage: number }): RankedHit => ({
  id: row.id,
  session_id: row.sessionId,
  turn_seq: row.turnSeq,
  created_at: row.createdAt,
  rank,
  ...signal,
});
