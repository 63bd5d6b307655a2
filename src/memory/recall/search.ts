import { z } from "zod";
import type { Database } from "../../db/database.js";
import { MEMORY_TYPES } from "../../db/schema/index.js";
import type { Embedder } from "../../providers/types.js";
import { NO_REDACTION } from "../../redaction/policy.js";
import { type RedactionPolicy, redactText } from "../../redaction/redact.js";
import type { Clock } from "../../util/clock.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";
import type { RetentionClock } from "../lifecycle/retention.js";
import type { AnnIndex } from "./ann-index.js";
import { type RecallSettings, recallByIds, recallMemories, retentionAtQuery } from "./hybrid-recall.js";
import { embedQueryForRecall } from "./query-vector.js";
import { roundScore, type ScoredMemory, scoreMemories } from "./scoring.js";
import { resolveTimeWindow, type TimeWindow, TimeWindowSchema } from "./time-window.js";

export const SearchMemorySchema = z.strictObject({
  user_id: ExternalIdSchema,
  app_id: ExternalIdSchema.default("default"),
  query: z.string().min(1).max(20_000),
  limit: z.number().int().min(1).max(100).default(10),
  types: z.array(z.enum(MEMORY_TYPES)).min(1).optional(),
  /** Results below this relevance (0-1) are dropped; none left means "no relevant memory". */
  min_relevance: z.number().min(0).max(1).default(0),
  as_of: z.iso.datetime({ offset: true }).optional(),
  time_window: TimeWindowSchema.optional(),
  /** Retrieval receipts: each result's signals and why it ranks there, and the candidates left out and why. */
  explain: z.boolean().default(false),
});
export type SearchMemory = z.infer<typeof SearchMemorySchema>;

/** A candidate search did not return, and why (with `explain: true`). */
export interface LeftOut {
  memory: ScoredMemory;
  because: "below_relevance" | "beyond_limit";
}

export interface SearchResult {
  memories: ScoredMemory[];
  /** With `explain`: the candidates not returned. */
  leftOut?: LeftOut[];
  /** The reference time of the scores (the `as_of` time if given). */
  now: Date;
  noRelevantMemory: boolean;
  window: TimeWindow | null;
  warnings: string[];
}

/**
 * search_memory: hybrid recall with type, time-window and as-of filters,
 * final weighted scores, and relevance gating that can answer "no relevant memory".
 *
 * @example
 * await searchMemory(deps, { user_id: "ana", app_id: "default", query: "pets", limit: 5, min_relevance: 0.3 });
 */
export async function searchMemory(
  deps: {
    db: Database;
    embedder: Embedder;
    clock: Clock;
    ann?: AnnIndex;
    redaction?: RedactionPolicy;
    recall?: RecallSettings;
  },
  submitted: SearchMemory,
): Promise<SearchResult> {
  // A query is text sent to the embedder: redacted like everything else that reaches a provider.
  const input = { ...submitted, query: redactText(submitted.query, deps.redaction ?? NO_REDACTION) };
  const warnings: string[] = [];
  const now = input.as_of ? new Date(input.as_of) : deps.clock.now();
  const window = input.time_window ? resolveTimeWindow(input.time_window, now) : null;
  const usage = { appId: input.app_id, userId: input.user_id, stage: "query" as const };
  // Not awaited here: recall ranks by text while the query is being embedded.
  const vector = embedQueryForRecall(deps, usage, input.query, warnings);
  const recalled = await recallMemories(
    deps.db,
    {
      appId: input.app_id,
      userId: input.user_id,
      text: input.query,
      vector,
      limit: Math.max(input.limit * 4, 40),
      ...(input.types ? { types: input.types } : {}),
      now,
      ...(input.as_of ? { asOf: now } : {}),
      ...(window ? { window } : {}),
    },
    deps.recall,
  );
  const scored = scoreMemories(recalled, now);
  const relevant = scored.filter((memory) => memory.relevance >= input.min_relevance);
  const results = (
    await withWhatReplacedThem(
      deps.db,
      { appId: input.app_id, userId: input.user_id },
      relevant.slice(0, input.limit),
      retentionAtQuery({ now }, deps.recall ?? {}),
    )
  ).slice(0, input.limit);
  const returned = new Set(results.map((memory) => memory.id));
  const leftOut = scored
    .filter((memory) => !returned.has(memory.id))
    .map((memory) => ({
      memory,
      because: memory.relevance < input.min_relevance ? ("below_relevance" as const) : ("beyond_limit" as const),
    }));
  return { memories: results, ...(input.explain ? { leftOut } : {}), now, noRelevantMemory: relevant.length === 0, window, warnings };
}

/**
 * A hit whose statement was replaced brings the statement that replaced it, ranked just above it,
 * so the newer fact always outranks the older episode (and the answer never reads the old one as current).
 */
async function withWhatReplacedThem(
  db: Database,
  scope: { appId: string; userId: string },
  hits: ScoredMemory[],
  clock: RetentionClock,
): Promise<ScoredMemory[]> {
  const present = new Set(hits.map((hit) => hit.id));
  const missing = [
    ...new Set(
      hits.flatMap((hit) =>
        (hit.superseded ?? []).flatMap((replacement) => (replacement.byId && !present.has(replacement.byId) ? [replacement.byId] : [])),
      ),
    ),
  ];
  if (missing.length === 0) return hits;
  const newer = new Map((await recallByIds(db, scope, missing, clock)).map((memory) => [memory.id, memory]));
  const results: ScoredMemory[] = [];
  for (const hit of hits) {
    for (const { byId } of hit.superseded ?? []) {
      const replacement = byId ? newer.get(byId) : undefined;
      if (!replacement || present.has(replacement.id)) continue;
      present.add(replacement.id);
      results.push({ ...replacement, relevance: hit.relevance, finalScore: roundScore(hit.finalScore + 0.0001) });
    }
    results.push(hit);
  }
  return results;
}
