import { memoryContext } from "../integrations/ai-sdk.js";
import { startInProcess } from "./in-process.js";

/**
 * `npx tsx examples/ai-sdk-context.ts`: the context a Vercel AI SDK chat request would get. With
 * the `ai` package: `generateText({ model, system, messages })` with the `system` printed here.
 */
const { runtime, client, settled } = await startInProcess();
try {
  await client.v1.memories.$post({
    json: { user_id: "sam", type: "semantic", subtype: "profile", key: "profile:city", value: "Ghent", content: "Sam lives in Ghent." },
  });
  await client.v1.memories.$post({ json: { user_id: "sam", type: "insight", content: "Sam is training for a marathon in April." } });
  await settled("sam");
  const messages = [{ role: "user" as const, content: "Any tips for my long run this weekend?" }];
  const { system, memoriesUsed } = await memoryContext(client, {
    userId: "sam",
    messages,
    maxTokens: 500,
    instructions: "You are a friendly running coach.",
  });
  console.log(`memories used: ${memoriesUsed}`);
  console.log(`system prompt for generateText:\n${system}`);
} finally {
  await runtime.close();
}
