import { SearchMemorySchema, searchMemory as search } from "../../../src/memory/recall/search.js";
import { recallSignals } from "../../../src/memory/recall/signals.js";
import { defineTool } from "../tool.js";

/** `search_memory`: what `POST /v1/memories/search` takes, no less (agents get time travel too). */
export const searchMemory = defineTool<"db" | "embedder" | "clock" | "redaction" | "recall" | "ann">()({
  name: "search_memory",
  title: "Search memory",
  description:
    "Find the user's memories relevant to `query`, best first, with relevance scores; `limit` caps them and `min_relevance` drops weak ones. " +
    'Time travel: `as_of` (an RFC 3339 time: what was true then) and `time_window`, either a phrase ("just now", "today", "yesterday", ' +
    '"recently", "last time", "long ago") or an object with `from` and/or `to`. `types` narrows to "episodic", "semantic", "insight" ' +
    'or "trait". `explain` adds why each result ranks where it does and what was left out.',
  input: SearchMemorySchema,
  example: { user_id: "ana", query: "what does she eat", time_window: "recently", types: ["semantic"], explain: true },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const { db, embedder, clock, redaction, recall, ann } = deps;
    const result = await search({ db, embedder, clock, redaction, recall, ...(ann ? { ann } : {}) }, input);
    return {
      no_relevant_memory: result.noRelevantMemory,
      ...(result.window ? { window: { from: result.window.from?.toISOString(), to: result.window.to?.toISOString() } } : {}),
      memories: result.memories.map((memory) => ({
        id: memory.id,
        type: memory.type,
        content: memory.content,
        relevance: memory.relevance,
        valid_at: memory.validAt.toISOString(),
        first_stated_at: memory.firstStatedAt.toISOString(),
        last_confirmed_at: memory.lastConfirmedAt.toISOString(),
        ...(result.leftOut ? { signals: recallSignals(memory, result.now) } : {}),
      })),
      ...(result.leftOut
        ? {
            left_out: result.leftOut.map(({ memory, because }) => ({
              id: memory.id,
              content: memory.content,
              relevance: memory.relevance,
              because,
            })),
          }
        : {}),
    };
  },
});
