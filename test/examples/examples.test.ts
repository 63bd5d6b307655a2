import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const execute = promisify(execFile);
const run = async (file: string) =>
  (await execute("npx", ["tsx", file], { env: { ...process.env, LOG_LEVEL: "error" }, timeout: 150_000 })).stdout;

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
});
