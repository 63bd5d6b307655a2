import { compareCodeUnits } from "../../util/compare-code-units.js";

/** Reciprocal-rank-fusion constant: the usual 60, which keeps a list's first places from drowning the rest. */
export const RRF_K = 60;

/** One channel's hit (vector, full-text, or another channel such as an entity graph's), as fusion needs it. */
export interface RankedHit {
  id: string;
  session_id: string | null;
  turn_seq: number | null;
  /** Postgres' text form: exact (a Date would lose the microseconds), and ordered as text within one time zone. */
  created_at: string;
  rank: number;
  similarity?: number;
  coverage?: number;
  /** How the channel reached the memory, for the receipts (a graph channel: the entity and hop). */
  via?: string;
}

/** Where one channel ranked a memory. */
export interface ChannelRank {
  channel: string;
  rank: number;
  via?: string;
}

/** A memory the channels together put among the best, before its row is read. */
export interface FusedHit {
  id: string;
  session_id: string | null;
  /** A turn's seq in its session (null for every other memory). */
  turn_seq: number | null;
  created_at: string;
  /** RRF score over the channels. */
  fused: number;
  /** What it gained from a well-ranked turn beside it. */
  neighbour_boost: number;
  score: number;
  similarity: number;
  coverage: number;
  vector_rank: number | null;
  text_rank: number | null;
  /** Every channel that found it, in the order the channels were given. */
  channels: ChannelRank[];
}

/**
 * Reciprocal rank fusion of the channels' rankings (by name, in the order given: vector, text,
 * then any other), each memory's score plus its neighbour boost: a turn beside a well-ranked turn
 * of its session (seq ± 1) gains `neighbourWeight` of the better neighbour's fused score. Evidence
 * runs over consecutive turns (a question, its answer, the details after), and the words of the
 * question often sit in only one of them. Returns the best `limit`, by score and then the newer
 * first, each channel's first hit always among them (`bestKeepingHeads`).
 *
 * With `coverageWeighted`, a text hit counts in proportion to the share of the query's BM25
 * weight it matches: a memory holding only the query's commonest word ranks high in a text
 * ranking that has nothing better, and without the weight that place counted as much as a
 * memory's holding every word ("As an AI language model" for "which language am I studying?").
 *
 * In the process rather than in SQL: the hits are at most a few hundred per channel, and the one
 * statement that follows reads only the rows returned (fusing in SQL read all of them).
 *
 * @example
 * fuseRankings({ vector: nearest, text: byWords, graph: byEntities }, 0.5, 40);
 */
export function fuseRankings(
  rankings: Readonly<Record<string, readonly RankedHit[]>>,
  neighbourWeight: number,
  limit: number,
  coverageWeighted = false,
): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  for (const [channel, hits] of Object.entries(rankings)) {
    for (const hit of hits) {
      const entry = fused.get(hit.id) ?? {
        id: hit.id,
        session_id: hit.session_id,
        turn_seq: hit.turn_seq,
        created_at: hit.created_at,
        fused: 0,
        neighbour_boost: 0,
        score: 0,
        similarity: 0,
        coverage: 0,
        vector_rank: null,
        text_rank: null,
        channels: [],
      };
      const weight = coverageWeighted && channel === "text" ? (hit.coverage ?? 1) : 1;
      entry.fused += weight / (RRF_K + hit.rank);
      entry.similarity = Math.max(entry.similarity, hit.similarity ?? 0);
      entry.coverage = Math.max(entry.coverage, hit.coverage ?? 0);
      if (channel === "vector") entry.vector_rank = Math.min(entry.vector_rank ?? hit.rank, hit.rank);
      else if (channel === "text") entry.text_rank = Math.min(entry.text_rank ?? hit.rank, hit.rank);
      // A channel names a memory once; were it twice, its best place counts for the receipts.
      const place: ChannelRank = { channel, rank: hit.rank, ...(hit.via ? { via: hit.via } : {}) };
      const seen = entry.channels.findIndex((found) => found.channel === channel);
      if (seen < 0) entry.channels.push(place);
      else if (hit.rank < (entry.channels[seen] as ChannelRank).rank) entry.channels[seen] = place;
      fused.set(hit.id, entry);
    }
  }
  const entries = [...fused.values()];
  if (neighbourWeight > 0) boostNeighbours(entries, neighbourWeight);
  for (const entry of entries) entry.score = entry.fused + entry.neighbour_boost;
  entries.sort((a, b) => b.score - a.score || compareCodeUnits(b.created_at, a.created_at));
  return bestKeepingHeads(entries, channelHeads(rankings), limit);
}

/** Each channel's first hit: its lowest rank, the lowest id of equal ones (as `fusedHitsSql` picks it). */
function channelHeads(rankings: Readonly<Record<string, readonly RankedHit[]>>): Set<string> {
  const heads = new Set<string>();
  for (const hits of Object.values(rankings)) {
    const first = hits.reduce<RankedHit | undefined>(
      (best, hit) =>
        best === undefined || hit.rank < best.rank || (hit.rank === best.rank && compareCodeUnits(hit.id, best.id) < 0) ? hit : best,
      undefined,
    );
    if (first) heads.add(first.id);
  }
  return heads;
}

/**
 * The best `limit` of the entries (sorted best first), each channel's first hit among them
 * wherever its score puts it, in the place of the last of the others. One channel's best match
 * found by it alone scores 1 / 61; hits that two channels found in their first sixty, or that sit
 * beside such a hit, score more, and in a long history there are more of them than a window takes.
 * A change of state said in other words than the question is found by meaning only: it must stay
 * a candidate. When the heads would be more than half of `limit` (a search for a few results),
 * the best `limit` by score: the heads would crowd out what the channels agree on.
 */
function bestKeepingHeads(entries: FusedHit[], heads: ReadonlySet<string>, limit: number): FusedHit[] {
  if (heads.size * 2 > limit) return entries.slice(0, limit);
  const room = limit - heads.size;
  let others = 0;
  return entries.filter((entry) => heads.has(entry.id) || others++ < room);
}

/** Gives each turn `weight` of the better fused score of the turns right before and after it in its session, among the hits. */
function boostNeighbours(entries: FusedHit[], weight: number): void {
  const turns = new Map<string, Map<number, FusedHit>>();
  for (const entry of entries) {
    if (entry.session_id === null || entry.turn_seq === null) continue;
    const session = turns.get(entry.session_id) ?? new Map<number, FusedHit>();
    session.set(entry.turn_seq, entry);
    turns.set(entry.session_id, session);
  }
  for (const session of turns.values()) {
    for (const [seq, entry] of session) {
      entry.neighbour_boost = Math.max(session.get(seq - 1)?.fused ?? 0, session.get(seq + 1)?.fused ?? 0) * weight;
    }
  }
}
