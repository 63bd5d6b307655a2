import { assembleContext, type ContextDeps } from "../../../src/context/assemble-context.js";
import { ContextRequestSchema } from "../../../src/context/schemas.js";
import { defineTool } from "../tool.js";

/** `get_context`: what `POST /v1/context` takes (budget shares, history strategy, system and tools sections); answers the prompt text. */
export const getContext = defineTool<keyof ContextDeps>()({
  name: "get_context",
  title: "Context window",
  description:
    "A context window for the next turn within `max_tokens`: the user's profile facts, memories relevant to `query` and the session's recent history " +
    "(`session_id`), rendered as prompt text. `system`, `tools`, `knowledge` and `user_message` add sections; `budget_ratios` shares the budget; " +
    '`history` compresses turns ("none", "trim", "summarize" or "sliding_window"). With `explain`, the prompt comes with its receipts.',
  input: ContextRequestSchema,
  example: { user_id: "ana", query: "Plan dinner", max_tokens: 800, history: { strategy: "trim", max_turns: 10 } },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const { db, embedder, tokenizer, clock, redaction, followingTurns, neighbourWeight, window: settings, recall, ann } = deps;
    const window = await assembleContext(
      { db, embedder, tokenizer, clock, redaction, followingTurns, neighbourWeight, window: settings, recall, ...(ann ? { ann } : {}) },
      input,
    );
    return window.explanation ? { prompt: window.prompt, explanation: window.explanation } : window.prompt;
  },
});
