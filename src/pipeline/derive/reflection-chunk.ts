import type { Database, Queryable } from "../../db/database.js";
import { knownFacts } from "../../memory/read/known-facts.js";
import { type ConsolidationResult, consolidate } from "../../memory/write/consolidate.js";
import { groundExtraction } from "../../memory/write/extraction-grounding.js";
import type { Extraction } from "../../providers/extraction.js";
import type { Embedder, LanguageModel } from "../../providers/types.js";
import { closeOvertakenJobs, finishJob } from "../jobs.js";
import { advanceReflectedSeq, type ReflectionChunk } from "../reflection-backlog.js";

/**
 * Facts, insights and trait evidence of one reflection chunk (C2). The user's current facts go with
 * the turns, so the model reuses their keys; a redacted event is a tombstone with no words.
 */
export async function extractChunk(deps: { db: Database; llm: LanguageModel }, chunk: ReflectionChunk, now: Date): Promise<Extraction> {
  const facts = await knownFacts(deps.db, chunk.session, now);
  const turns = chunk.events.filter((e) => e.content !== "").map((e) => ({ role: e.role, content: e.content, seq: e.seq }));
  return deps.llm.extract({ turns, knownFacts: facts });
}

/**
 * Consolidates one chunk's extraction into the user's memory (C3-C8) in the transaction that moves
 * the reflection watermark from where the chunk was loaded, so each event is reflected once (C6),
 * and completes the chunk's job. The same body serves deep reflection and a rebuild's shadow derivation.
 */
export function consolidateChunk(
  deps: { db: Database; embedder: Embedder },
  chunk: ReflectionChunk & { jobId: string },
  extraction: Extraction,
  options: { now: Date; afterApply?: (tx: Queryable) => Promise<void> },
): Promise<ConsolidationResult> {
  const sessionId = chunk.session.id;
  const events = chunk.events.map((e) => ({ ...e, sessionId, occurredAt: new Date(e.occurredAt) }));
  return consolidate(deps, chunk.session, groundExtraction(extraction, events), {
    actor: "deep-reflection",
    now: options.now,
    guard: (tx) => advanceReflectedSeq(tx, sessionId, chunk.fromSeq, chunk.toSeq),
    afterApply: async (tx, operations) => {
      await finishJob(tx, chunk.jobId, { status: "completed", result: { operations: countOperations(operations) } });
      await closeOvertakenJobs(tx, { sessionId, jobType: "deep_reflection", throughSeq: chunk.toSeq, byJobId: chunk.jobId });
      await options.afterApply?.(tx);
    },
  });
}

/** Applied operations counted per `kind:op` (e.g. `fact:ADD`), as jobs and run outputs report them. */
export function countOperations(operations: { op: string; kind: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const operation of operations) counts[`${operation.kind}:${operation.op}`] = (counts[`${operation.kind}:${operation.op}`] ?? 0) + 1;
  return counts;
}
