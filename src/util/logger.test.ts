import { describe, expect, it } from "vitest";
import { createLogger, toVariadicLogger } from "./logger.js";

/** A failed query as drizzle throws it: its own fields are the statement and its parameters. */
const failedQuery = () =>
  Object.assign(new Error("Failed query: INSERT INTO executor_steps …\\nparams: words the user said"), {
    query: "INSERT INTO executor_steps (run_id, data) VALUES ($1, $2)",
    params: ["run_1", "words the user said"],
  });

describe("the logger in the shape the Inngest SDK calls", () => {
  it("never writes a failed query's parameters, whether handed an error or an object holding one", () => {
    const lines: string[] = [];
    const sdk = toVariadicLogger(createLogger("debug", (line) => lines.push(line)));
    sdk.error({ err: failedQuery() }, "step failed");
    sdk.error(failedQuery());
    sdk.warn("retrying", { err: failedQuery() });
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).not.toContain("words the user said");
    expect(lines[0]).toContain("INSERT executor_steps");
  });
});
