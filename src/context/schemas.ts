import { z } from "zod";

export const ContextRequestSchema = z
  .strictObject({
    user_id: z.string().trim().min(1).max(200),
    app_id: z.string().trim().min(1).max(200).default("default"),
    session_id: z.uuid().optional(),
    query: z.string().min(1).max(20_000),
    max_tokens: z.number().int().min(16).max(2_000_000),
    reserve_output_tokens: z.number().int().min(0).default(0),
    system: z.string().max(200_000).optional(),
  })
  .refine((body) => body.reserve_output_tokens < body.max_tokens, {
    path: ["reserve_output_tokens"],
    message: "must be smaller than max_tokens",
  });
export type ContextRequest = z.infer<typeof ContextRequestSchema>;

export const SourceSchema = z.object({ session_id: z.string(), event_id: z.string(), seq: z.number().int() });

export const ContextItemSchema = z.object({
  text: z.string(),
  tokens: z.number().int(),
  memory_id: z.string().optional(),
  /** The header the item is listed under in the prompt (the memory's date). */
  group: z.string().optional(),
  sources: z.array(SourceSchema),
});
export type ContextItem = z.infer<typeof ContextItemSchema>;

export const SECTION_KINDS = ["system", "memories", "history"] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

export const ContextSectionSchema = z.object({
  kind: z.enum(SECTION_KINDS),
  tokens: z.number().int(),
  items: z.array(ContextItemSchema),
});
export type ContextSection = z.infer<typeof ContextSectionSchema>;

export const ContextWindowSchema = z.object({
  sections: z.array(ContextSectionSchema),
  total_tokens: z.number().int(),
  max_tokens: z.number().int(),
  reserve_output_tokens: z.number().int(),
  budget: z.number().int(),
  tokenizer: z.string(),
  prompt: z.string(),
  warnings: z.array(z.string()),
});
export type ContextWindow = z.infer<typeof ContextWindowSchema>;
