import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { freshDatabase } from "../fixtures/database.js";

const execute = promisify(execFile);

/**
 * Runs an example as a user would (`npx tsx examples/…`), on a database of its own: in memory on
 * the PGlite pass, a fresh copy of the migrated template on the Postgres pass (`DATABASE_URL`).
 */
async function run(file: string): Promise<string> {
  const database = await freshDatabase();
  try {
    const env = { ...process.env, ...(database.url ? { DATABASE_URL: database.url } : {}), LOG_LEVEL: "error" };
    return (await execute("npx", ["tsx", file], { env, timeout: 150_000 })).stdout;
  } finally {
    await database.drop();
  }
}

describe("examples run offline", () => {
  it("ADK MemoryService adapter: a finished session becomes searchable memory", async () => {
    const output = await run("examples/adk-memory-service.ts");
    expect(output).toMatch(/search_memory\("What does Noor eat\?"\) → [1-9]\d* memories/);
    expect(output).toContain("User is vegetarian.");
  });

  it("Vercel AI SDK helper: a system prompt with the user's facts and memories", async () => {
    const output = await run("examples/ai-sdk-context.ts");
    expect(output).toContain("memories used: 2");
    expect(output).toContain("You are a friendly running coach.");
    expect(output).toContain("Sam lives in Ghent.");
    expect(output).toContain("Sam is training for a marathon in April.");
  });

  it("OpenAI Agents SDK session: the log keeps the conversation, the window reaches the next turn", async () => {
    const output = await run("examples/openai-agents-session.ts");
    for (const step of ["turn 2: the context window recalled turn 1", "popItem", "clearSession"]) expect(output).toContain(`ok: ${step}`);
    expect(output).toMatch(/## Relevant memories[\s\S]*I am vegan/);
  });

  it("LangGraph store: a compiled graph writes notes and recalls them through its store", async () => {
    const output = await run("examples/langgraph-store.ts");
    for (const step of ["put", "search", "get", "listNamespaces", "delete"]) expect(output).toContain(`ok: ${step}:`);
    expect(output).toMatch(/graph answer: my bike is a blue Gazelle\. \(rosa\/notes, score 0\.\d\d\)/);
  });
});
