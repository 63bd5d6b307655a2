import type { AgentInputItem, CallModelInputFilter } from "@openai/agents";
import { z } from "zod";
import type { MemoryClient } from "../../client/index.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { okJson } from "../expect-ok.js";

export const MemoryContextOptionsSchema = z.strictObject({
  userId: ExternalIdSchema,
  appId: ExternalIdSchema.optional(),
  /** Token budget of the window (the agent's instructions included). */
  maxTokens: z.number().int().min(16).max(2_000_000),
  /** Tokens of `maxTokens` kept free for the answer. */
  reserveOutputTokens: z.number().int().min(0).optional(),
});
export type MemoryContextOptions = z.input<typeof MemoryContextOptionsSchema>;

/**
 * A `callModelInputFilter` for the OpenAI Agents SDK (`run(agent, input, { callModelInputFilter })`
 * or `new Runner({ callModelInputFilter })`): before every model call it asks `POST /v1/context` for
 * the user's token-budgeted window for the latest user message — the agent's own instructions first,
 * then the facts and memories recalled for it — and sends that as the model's instructions. The
 * conversation itself comes from the session (`MnemoSession`), so the window leaves history out.
 * A call with no user message (none in the input) goes to the model unchanged.
 *
 * @example
 * const callModelInputFilter = memoryContextFilter(client, { userId: "ana", maxTokens: 1500 });
 * await run(agent, "Any tips for my long run?", { session, callModelInputFilter });
 */
export function memoryContextFilter(client: MemoryClient, options: MemoryContextOptions): CallModelInputFilter {
  const settings = MemoryContextOptionsSchema.parse(options);
  return async ({ modelData }) => {
    const query = lastUserText(modelData.input);
    if (!query) return modelData;
    const window = await okJson(
      client.v1.context.$post({
        json: {
          user_id: settings.userId,
          ...(settings.appId ? { app_id: settings.appId } : {}),
          query,
          max_tokens: settings.maxTokens,
          ...(settings.reserveOutputTokens !== undefined ? { reserve_output_tokens: settings.reserveOutputTokens } : {}),
          ...(modelData.instructions ? { system: modelData.instructions } : {}),
          history: { strategy: "none" },
        },
      }),
    );
    return { input: modelData.input, instructions: window.prompt };
  };
}

/** The words of the newest user message (its text parts), or "" when there is none. */
export function lastUserText(input: AgentInputItem[]): string {
  for (let index = input.length - 1; index >= 0; index -= 1) {
    const item = input[index];
    if (!item || !("role" in item) || item.role !== "user") continue;
    if (typeof item.content === "string") return item.content.trim();
    return item.content
      .flatMap((part) => (part.type === "input_text" ? [part.text] : []))
      .join("\n")
      .trim();
  }
  return "";
}
