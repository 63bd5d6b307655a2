import { z } from "zod";
import { ENTITY_KINDS } from "../vocabulary/entity-kinds.js";
import { normalizePredicate } from "../vocabulary/graph-predicates.js";

/** Seqs of the turns a candidate came from; every extracted item must name at least one. */
const SourceSeqsSchema = z.array(z.number().int().min(1)).min(1);

/** Keys compare case- and space-insensitively: "Profile: Home City" is profile:home_city. */
function normalizeKey(key: string): string {
  return key
    .trim()
    .toLowerCase()
    .replace(/\s*:\s*/g, ":")
    .replace(/[\s-]+/g, "_");
}

export const FACT_TYPES = ["preference", "rule", "profile"] as const;

/**
 * What an extractor does with a fact against the user's current ones: add it (ADD), give a held
 * attribute a new value because it changed (UPDATE), end a held fact (DELETE), put a held fact
 * right because it was wrong (CORRECT), or restate one unchanged (NOOP).
 */
export const FACT_OPERATIONS = ["ADD", "UPDATE", "DELETE", "CORRECT", "NOOP"] as const;
export type FactOperation = (typeof FACT_OPERATIONS)[number];

/**
 * A semantic fact: `key` identifies what the fact is about (two facts with one key
 * contradict unless their values agree), `value` is the structured content, `content` the
 * sentence shown to an agent. `operation: "DELETE"` retracts what the key said before.
 */
export const ExtractedFactSchema = z.object({
  type: z.enum(FACT_TYPES),
  key: z.string().min(1).max(120).transform(normalizeKey),
  value: z.union([z.record(z.string(), z.unknown()), z.string(), z.number(), z.boolean()]),
  content: z.string().min(1).max(1000),
  confidence: z.number().min(0).max(1).default(0.8),
  /**
   * The extractor's operation against the facts it was shown, kept as stated and recorded in the
   * memory's history. The write path still decides by key whether a fact is new, a new value, or
   * the value already held (a NOOP that restates the held value only adds its turns as sources);
   * DELETE retracts.
   */
  operation: z.enum(FACT_OPERATIONS).default("ADD"),
  /** A key the user's memory holds that this fact replaces under another name (LLM extraction). */
  replaces_key: z
    .string()
    .max(120)
    .nullish()
    .transform((key) => (key ? normalizeKey(key) : undefined))
    .optional(),
  source_seqs: SourceSeqsSchema,
});
export type ExtractedFact = z.infer<typeof ExtractedFactSchema>;

export const ExtractedInsightSchema = z.object({
  content: z.string().min(1).max(1000),
  importance: z.enum(["high", "medium", "low"]).default("medium"),
  source_seqs: SourceSeqsSchema,
});
export type ExtractedInsight = z.infer<typeof ExtractedInsightSchema>;

export const TraitEvidenceSchema = z.object({
  subtype: z.enum(["behavior", "preference", "core"]),
  key: z.string().min(1).max(120).transform(normalizeKey),
  content: z.string().min(1).max(500),
  direction: z.enum(["supporting", "contradicting"]),
  quality: z.enum(["A", "B", "C", "D"]),
  source_seqs: SourceSeqsSchema,
});
export type TraitEvidenceCandidate = z.infer<typeof TraitEvidenceSchema>;

const NameSchema = z.string().trim().min(1).max(200);

/**
 * A person, pet, place, organisation, object or event the turns name (issue 40), with the other
 * names it goes by there and, when the turns say it was renamed, the name it had before.
 */
export const ExtractedEntitySchema = z.object({
  name: NameSchema,
  kind: z.enum(ENTITY_KINDS),
  aliases: z.array(NameSchema).max(20).default([]),
  summary: z.string().trim().max(500).nullish(),
  renamed_from: NameSchema.nullish(),
  source_seqs: SourceSeqsSchema,
});
export type ExtractedEntity = z.infer<typeof ExtractedEntitySchema>;

/** The name a relation uses for the user (the user's own node). */
export const USER_SUBJECT = "user";

/** The object of a retraction of an exclusive predicate that does not say what ended ("I quit my job"): whatever holds it. */
export const ANY_OBJECT = "*";

/**
 * An edge: `subject` and `object` name entities (`user` for the user) or, for the object, a value;
 * `DELETE` retracts what the relation said ("Maya is no longer in Mr. Ortiz's class"). A new object
 * of an exclusive predicate (`lives_in`, `works_at`…) closes the old one.
 */
export const ExtractedRelationSchema = z.object({
  subject: NameSchema,
  predicate: z.string().min(1).max(80).transform(normalizePredicate).pipe(z.string().min(1)),
  object: z.string().trim().min(1).max(300),
  content: z.string().min(1).max(1000),
  confidence: z.number().min(0).max(1).default(0.8),
  operation: z.enum(["ADD", "DELETE"]).default("ADD"),
  source_seqs: SourceSeqsSchema,
});
export type ExtractedRelation = z.infer<typeof ExtractedRelationSchema>;

/** What an extractor reads from a chunk: the items, each citing its turns. */
export const ExtractedItemsSchema = z.object({
  facts: z.array(ExtractedFactSchema).default([]),
  insights: z.array(ExtractedInsightSchema).default([]),
  traits: z.array(TraitEvidenceSchema).default([]),
  entities: z.array(ExtractedEntitySchema).default([]),
  relations: z.array(ExtractedRelationSchema).default([]),
});

/**
 * Which extractor read a chunk, in which version: recorded with every memory it writes (metadata
 * and history), so a difference after a rebuild can be traced to a change of rules or of prompt.
 * `version` changes whenever what the extractor reads changes: a hash of the offline rules'
 * sources, or an LLM's model id with a hash of its prompt.
 */
export const ExtractorSchema = z.object({
  /** `offline-rules`, `gemini`, `openai-compatible`, or another implementation's name. */
  name: z.string().min(1).max(80),
  version: z.string().min(1).max(200),
  /** An LLM's model id. */
  model: z.string().max(200).optional(),
  /** A hash of an LLM's extraction prompt and answer schema. */
  prompt_version: z.string().max(80).optional(),
});
export type Extractor = z.infer<typeof ExtractorSchema>;

/** An extraction of one chunk, with the extractor that made it. */
export const ExtractionSchema = ExtractedItemsSchema.extend({ extractor: ExtractorSchema });
export type Extraction = z.infer<typeof ExtractionSchema>;
/** The items of an extraction, before the extractor that read them is named. */
export type ExtractedItems = z.infer<typeof ExtractedItemsSchema>;

export const IMPORTANCE_BY_LEVEL = { high: 0.9, medium: 0.6, low: 0.3 } as const;
