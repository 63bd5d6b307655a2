import type { LanguageModelV4Middleware, LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
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

export interface MemoryMiddlewareOptions {
  userId: string;
  appId?: string;
  /** The session the conversation's turns are appended to; without it, nothing is written. */
  sessionId?: string;
  /** Token budget of the context window put in front of the call. */
  maxTokens: number;
  /** The agent's own instructions, placed first in the window. */
  instructions?: string;
}

/**
 * A Vercel AI SDK language-model middleware (`wrapLanguageModel({ model, middleware })`): before
 * each call it puts the user's context window (facts, relevant memories; the caller sends the
 * history itself) in front of the prompt as a system message; after the call it appends the turn —
 * the last user message and the model's text — to the session, so the memory pipeline learns from
 * it. Works for `generateText` and `streamText` alike (a stream's text is appended once it ends).
 *
 * @example
 * const model = wrapLanguageModel({ model: google("gemini-3.8-flash"), middleware: memoryMiddleware(client, { userId, sessionId, maxTokens: 2000 }) });
 * const { text } = await generateText({ model, prompt: "Where should we eat tonight?" });
 */
export function memoryMiddleware(client: MemoryClient, options: MemoryMiddlewareOptions): LanguageModelV4Middleware {
  const appendTurn = async (prompt: LanguageModelV4Prompt, answer: string) => {
    if (!options.sessionId) return;
    const question = lastUserText(prompt);
    const events = [
      ...(question ? [{ type: "message", role: "user" as const, content: question }] : []),
      ...(answer ? [{ type: "message", role: "assistant" as const, content: answer }] : []),
    ];
    if (events.length === 0) return;
    const response = await client.v1.sessions[":id"].events.$post({ param: { id: options.sessionId }, json: { events } });
    if (!response.ok) throw new Error(`memory append failed: ${response.status} ${await response.text()}`);
  };
  return {
    specificationVersion: "v4",
    async transformParams({ params }) {
      const query = lastUserText(params.prompt);
      if (!query) return params;
      const { system } = await memoryContext(client, {
        userId: options.userId,
        ...(options.appId ? { appId: options.appId } : {}),
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
        messages: [{ role: "user", content: query }],
        maxTokens: options.maxTokens,
        ...(options.instructions ? { instructions: options.instructions } : {}),
      });
      return { ...params, prompt: [{ role: "system", content: system }, ...params.prompt] };
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const answer = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      await appendTurn(params.prompt, answer);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      let answer = "";
      const recorder = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") answer += part.delta;
          controller.enqueue(part);
        },
        // The turn is written when the stream has been read to its end, before the reader sees the end.
        flush: () => appendTurn(params.prompt, answer),
      });
      return { ...result, stream: result.stream.pipeThrough(recorder) };
    },
  };
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  const last = [...prompt].reverse().find((message) => message.role === "user");
  if (last?.role !== "user") return "";
  return last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ");
}
