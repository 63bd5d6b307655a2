import type { Database } from "../../db/database.js";
import type { FactExtractor } from "../../memory/extraction/fact-extractor.js";
import { applyGraph, embedEntities } from "../../memory/graph/apply-graph.js";
import { groundGraph } from "../../memory/graph/graph-batch.js";
import { knownEntities } from "../../memory/graph/known-entities.js";
import { knownFacts } from "../../memory/read/known-facts.js";
import { type AppliedOperation, applyCandidates, embedCandidates } from "../../memory/write/consolidate.js";
import { groundExtraction } from "../../memory/write/extraction-grounding.js";
import type { Extraction } from "../../providers/extraction.js";
import type { Embedder } from "../../providers/types.js";
import { type ChunkOutcome, commitChunk } from "../chunk-unit.js";
import type { ReflectionChunk } from "../reflection-backlog.js";

/**
 * Facts, insights and trait evidence of one reflection chunk, read by the configured extractor (an
 * LLM, or the offline reader). The user's current facts go with the turns, so the extractor
 * reuses their keys and says what each statement does to them; a redacted event is a tombstone
 * with no words.
 */
export async function extractChunk(
  deps: { db: Database; extractor: FactExtractor },
  chunk: ReflectionChunk,
  now: Date,
): Promise<Extraction> {
  const [facts, entities] = await Promise.all([knownFacts(deps.db, chunk.session, now), knownEntities(deps.db, chunk.session)]);
  const turns = chunk.events
    .filter((e) => e.content !== "")
    .map((e) => ({ role: e.role, content: e.content, seq: e.seq, ...(e.speaker ? { speaker: e.speaker } : {}) }));
  return deps.extractor.extract({ turns, knownFacts: facts, knownEntities: entities });
}

/**
 * Consolidates one chunk's extraction into the user's memory in the chunk's unit of work
 * (`commitChunk`), which moves the reflection watermark from where the chunk was loaded, so each
 * event is reflected once. The candidates are embedded first, outside the transaction. The
 * same body serves deep reflection and a rebuild's shadow derivation.
 */
export async function consolidateChunk(
  deps: { db: Database; embedder: Embedder },
  chunk: ReflectionChunk & { jobId: string },
  extraction: Extraction,
  options: { now: Date },
): Promise<ChunkOutcome<AppliedOperation[]>> {
  const sessionId = chunk.session.id;
  const events = chunk.events.map((e) => ({ ...e, sessionId, occurredAt: new Date(e.occurredAt) }));
  const batch = groundExtraction(extraction, events);
  const graph = groundGraph(extraction, events);
  const [vectors, entityVectors] = await Promise.all([embedCandidates(deps.embedder, batch), embedEntities(deps.embedder, graph)]);
  const scope = { appId: chunk.session.appId, userId: chunk.session.userId };
  return commitChunk(deps.db, "reflection", chunk, async (tx) => {
    const operations = await applyCandidates(tx, scope, batch, vectors, { actor: "deep-reflection", now: options.now });
    const edges = await applyGraph(tx, scope, graph, entityVectors, { actor: "deep-reflection", now: options.now });
    const counts = { ...countOperations(operations), ...countOperations(edges.map((edge) => ({ ...edge, kind: "relation" }))) };
    return { written: operations, job: { status: "completed", result: { operations: counts } } };
  });
}

/** Applied operations counted per `kind:op` (e.g. `fact:ADD`), as jobs and run outputs report them. */
export function countOperations(operations: { op: string; kind: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const operation of operations) counts[`${operation.kind}:${operation.op}`] = (counts[`${operation.kind}:${operation.op}`] ?? 0) + 1;
  return counts;
}
