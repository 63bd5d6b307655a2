import type { MemoryClient } from "../client/index.js";

/** The message shape of the Vercel AI SDK (`ModelMessage` with text content) that this reads. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | { type: string; text?: string }[];
}

/**
 * For a Vercel AI SDK chat request: fetches a token-budgeted context window for the last user
 * message and returns `system` to pass to `generateText` / `streamText` next to the messages.
 * The memory's own history section is left out when the caller sends the history itself.
 *
 * @example
 * const { system } = await memoryContext(client, { userId, messages, maxTokens: 2000 });
 * const result = await generateText({ model, system, messages });
 */
export async function memoryContext(
  client: MemoryClient,
  options: { userId: string; appId?: string; sessionId?: string; messages: ChatMessage[]; maxTokens: number; instructions?: string },
): Promise<{ system: string; memoriesUsed: number }> {
  const lastUser = [...options.messages].reverse().find((message) => message.role === "user");
  const query = lastUser ? textOf(lastUser) : "";
  if (!query) return { system: options.instructions ?? "", memoriesUsed: 0 };
  const response = await client.v1.context.$post({
    json: {
      user_id: options.userId,
      ...(options.appId ? { app_id: options.appId } : {}),
      ...(options.sessionId ? { session_id: options.sessionId } : {}),
      query,
      max_tokens: options.maxTokens,
      ...(options.instructions ? { system: options.instructions } : {}),
      history: { strategy: "none" },
    },
  });
  if (!response.ok) throw new Error(`memory context failed: ${response.status} ${await response.text()}`);
  const window = await response.json();
  const memoriesUsed = window.sections
    .filter((section) => section.kind === "memories" || section.kind === "facts")
    .reduce((sum, section) => sum + section.items.length, 0);
  return { system: window.prompt, memoriesUsed };
}

function textOf(message: ChatMessage): string {
  return typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join(" ");
}
