import { z } from "zod";
import { ENTITY_KINDS } from "../vocabulary/entity-kinds.js";
import { ExtractedItemsSchema, type Extraction, type Extractor, FACT_OPERATIONS, FACT_TYPES } from "./extraction.js";
import { ProviderError } from "./types.js";

const seqs = z.array(z.number().int().min(1)).min(1);

/**
 * What a model must answer for extraction, in the form structured-output APIs accept (every
 * property required, nothing else allowed, no defaults): Gemini's `responseJsonSchema` and
 * OpenAI's strict `json_schema` are generated from it. The answer is then read with the more
 * lenient ExtractedItemsSchema, which also takes what the offline extractor and the API produce.
 */
export const ModelExtractionSchema = z.strictObject({
  facts: z.array(
    z.strictObject({
      type: z.enum(FACT_TYPES),
      key: z.string(),
      value: z.string(),
      content: z.string(),
      confidence: z.number(),
      operation: z.enum(FACT_OPERATIONS),
      replaces_key: z.string().nullable(),
      source_seqs: seqs,
    }),
  ),
  insights: z.array(z.strictObject({ content: z.string(), importance: z.enum(["high", "medium", "low"]), source_seqs: seqs })),
  traits: z.array(
    z.strictObject({
      subtype: z.enum(["behavior", "preference", "core"]),
      key: z.string(),
      content: z.string(),
      direction: z.enum(["supporting", "contradicting"]),
      quality: z.enum(["A", "B", "C", "D"]),
      source_seqs: seqs,
    }),
  ),
  entities: z.array(
    z.strictObject({
      name: z.string(),
      kind: z.enum(ENTITY_KINDS),
      aliases: z.array(z.string()),
      summary: z.string().nullable(),
      renamed_from: z.string().nullable(),
      source_seqs: seqs,
    }),
  ),
  relations: z.array(
    z.strictObject({
      subject: z.string(),
      predicate: z.string(),
      object: z.string(),
      content: z.string(),
      confidence: z.number(),
      operation: z.enum(["ADD", "DELETE"]),
      source_seqs: seqs,
    }),
  ),
});

/** The JSON Schema of ModelExtractionSchema (draft 2020-12, no `$schema` key: some servers refuse it). */
export function extractionJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(ModelExtractionSchema);
  return schema;
}

/**
 * Reads the model's JSON, repairing the usual damage (code fences, prose around the object) and
 * validating it whole; anything still invalid is a retryable error, never a partial result. The
 * answer is recorded as `extractor`'s.
 */
export function parseExtraction(text: string, allowedSeqs: Set<number>, extractor: Extractor): Extraction {
  const unfenced = text.replace(/^\s*```(?:json)?\s*/i, "").replace(/\s*```\s*$/, "");
  const start = unfenced.indexOf("{");
  const end = unfenced.lastIndexOf("}");
  let raw: unknown;
  try {
    raw = JSON.parse(start >= 0 && end > start ? unfenced.slice(start, end + 1) : unfenced);
  } catch (error) {
    throw new ProviderError(`extraction output is not JSON: ${(error as Error).message}`, true);
  }
  const parsed = ExtractedItemsSchema.safeParse(raw);
  if (!parsed.success) throw new ProviderError(`extraction output does not match the schema: ${parsed.error.message}`, true);
  const { facts, insights, traits, entities, relations } = parsed.data;
  const cited = [...facts, ...insights, ...traits, ...entities, ...relations].flatMap((item) => item.source_seqs);
  const unknown = cited.filter((seq) => !allowedSeqs.has(seq));
  if (unknown.length > 0) throw new ProviderError(`extraction cites turns that were not given: ${[...new Set(unknown)].join(", ")}`, true);
  return { ...parsed.data, extractor };
}
