import { z } from "zod";
import { whenValid } from "../util/when-valid.js";
import { ExternalIdSchema } from "../vocabulary/external-id.js";
import { ContextExplanationSchema } from "./receipts.js";

export const HISTORY_STRATEGIES = ["none", "trim", "summarize", "sliding_window"] as const;
export type HistoryStrategy = (typeof HISTORY_STRATEGIES)[number];

export const ContextRequestSchema = z
  .strictObject({
    user_id: ExternalIdSchema,
    app_id: ExternalIdSchema.default("default"),
    session_id: z.uuid().optional(),
    query: z.string().min(1).max(20_000),
    max_tokens: z.number().int().min(16).max(2_000_000),
    reserve_output_tokens: z.number().int().min(0).default(0),
    system: z.string().max(200_000).optional(),
    /** Tools the agent can call, listed whole (required: a window without them would mislead). */
    tools: z
      .array(
        z.union([
          z.string().min(1).max(5000),
          z.strictObject({ name: z.string().min(1).max(200), description: z.string().max(5000).optional() }),
        ]),
      )
      .max(200)
      .optional(),
    /** The message the agent is answering; rendered last. Defaults to none (the query is not repeated). */
    user_message: z.string().max(200_000).optional(),
    /** Retrieved documents the caller brings (RAG); packed best first into the knowledge share. */
    knowledge: z
      .array(z.strictObject({ text: z.string().min(1).max(50_000), source: z.string().max(500).optional() }))
      .max(500)
      .optional(),
    /** Shares of the budget left after the required sections (seed 000 §4.3.3 defaults). */
    budget_ratios: z
      .strictObject({
        facts: z.number().min(0).max(1),
        memories: z.number().min(0).max(1),
        knowledge: z.number().min(0).max(1),
        history: z.number().min(0).max(1),
      })
      .partial()
      .optional(),
    /** History compression. */
    history: z
      .strictObject({
        strategy: z.enum(HISTORY_STRATEGIES).default("none"),
        max_turns: z.number().int().min(1).max(500).default(20),
        /** Turns consecutive sliding windows share. */
        overlap: z.number().int().min(0).max(499).default(2),
      })
      .refine((history) => history.strategy !== "sliding_window" || history.overlap < history.max_turns, {
        path: ["overlap"],
        message: "must be smaller than max_turns",
        when: whenValid("max_turns", "overlap"),
      })
      .default({ strategy: "none", max_turns: 20, overlap: 2 }),
    /** Retrieval receipts: each memory's signals and why it is in the window, and the candidates left out and why. */
    explain: z.boolean().default(false),
  })
  .refine((body) => body.reserve_output_tokens < body.max_tokens, {
    path: ["reserve_output_tokens"],
    message: "must be smaller than max_tokens",
    when: whenValid("max_tokens", "reserve_output_tokens"),
  });
export type ContextRequest = z.infer<typeof ContextRequestSchema>;

export const SourceSchema = z.object({ session_id: z.string(), event_id: z.string(), seq: z.number().int() });

export const ContextItemSchema = z.object({
  text: z.string(),
  tokens: z.number().int(),
  memory_id: z.string().optional(),
  /** The header the item is listed under in the prompt (the memory's date). */
  group: z.string().optional(),
  /** The memory is cut to the sentences that answer the query; `POST /v1/memories/expand` with `memory_id` gives it whole. */
  excerpt: z.boolean().optional(),
  sources: z.array(SourceSchema),
});
export type ContextItem = z.infer<typeof ContextItemSchema>;

export const SECTION_KINDS = ["system", "tools", "user_message", "facts", "memories", "knowledge", "history"] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

export const ContextSectionSchema = z.object({
  kind: z.enum(SECTION_KINDS),
  tokens: z.number().int(),
  items: z.array(ContextItemSchema),
});
export type ContextSection = z.infer<typeof ContextSectionSchema>;

/** The memories a window holds, in section order (access recording, receipts). */
export const memoryIdsIn = (sections: ContextSection[]): string[] =>
  sections.flatMap((section) => section.items.flatMap((item) => (item.memory_id ? [item.memory_id] : [])));

export const ContextWindowSchema = z.object({
  sections: z.array(ContextSectionSchema),
  total_tokens: z.number().int(),
  max_tokens: z.number().int(),
  reserve_output_tokens: z.number().int(),
  budget: z.number().int(),
  tokenizer: z.string(),
  prompt: z.string(),
  warnings: z.array(z.string()),
  /** With `explain: true` only. */
  explanation: ContextExplanationSchema.optional(),
});
export type ContextWindow = z.infer<typeof ContextWindowSchema>;
