import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { type NodeTelemetry, startNodeTelemetry } from "../../src/telemetry/node-sdk.js";
import { onPostgres } from "../fixtures/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * Issue 50: two documented series were absent until first used and a served one was undocumented.
 * The metrics table of docs/operations.md says when each series is served ("from start", or
 * "after the first …", with a condition in parentheses); this holds it to what `/metrics` serves
 * right after start-up and after one request of each kind, on the database this pass runs on.
 */
interface Documented {
  name: string;
  fromStart: boolean;
  /** Where the series exists at all (the parenthesis of the Served column), or undefined: everywhere. */
  condition: string | undefined;
}

const operations = await readFile("docs/operations.md", "utf8");
const table = operations.slice(operations.indexOf("| Metric "), operations.indexOf("\n\n", operations.indexOf("| Metric ")));
const documented: Documented[] = table
  .split("\n")
  .slice(2)
  .map((row) => {
    const cells = row.split("|").map((cell) => cell.trim());
    const served = cells.at(-2) ?? "";
    return {
      name: (cells[1] ?? "").replace(/`/g, ""),
      fromStart: served.startsWith("from start"),
      condition: /\(([^)]+)\)$/.exec(served)?.[1],
    };
  });

/** Conditions of the Served column that hold for a test runtime: its own executor, on this pass's database. */
const holds = (condition: string | undefined): boolean =>
  condition === undefined ||
  condition === "embedded executor" ||
  (condition === "embedded database" && !onPostgres) ||
  (condition === "server database" && onPostgres);

let telemetry: NodeTelemetry;
let runtime: Runtime;
beforeAll(async () => {
  telemetry = startNodeTelemetry({ serviceName: "mnemo-metrics-served" });
  runtime = await startTestRuntime({}, { metrics: { text: () => telemetry.metricsText() } });
});
afterAll(async () => {
  await runtime?.close();
  await telemetry?.shutdown();
});

/** The metric families `/metrics` serves now (their `# TYPE` lines). */
async function served(): Promise<string[]> {
  const response = await runtime.app.request("/metrics");
  expect(response.status).toBe(200);
  const text = await response.text();
  return [...new Set(text.split("\n").flatMap((line) => (line.startsWith("# TYPE ") ? [line.split(" ")[2] as string] : [])))].sort();
}

describe("the metrics docs/operations.md lists", () => {
  it("parses: every row names a metric and when it is served", () => {
    expect(documented.length).toBeGreaterThan(15);
    for (const row of documented) {
      expect(row.name).toMatch(/^[a-z_]+$/);
      expect(["embedded executor", "embedded database", "server database", undefined]).toContain(row.condition);
    }
  });

  it("are served from start where the table says so, and nothing served is missing from it", async () => {
    const atStart = await served();
    const names = documented.map((row) => row.name);
    expect(atStart.filter((name) => !names.includes(name))).toEqual([]);
    const due = documented.filter((row) => row.fromStart && holds(row.condition)).map((row) => row.name);
    expect(due.filter((name) => !atStart.includes(name))).toEqual([]);
    // And what is documented as appearing later does not exist before it happens.
    const later = documented.filter((row) => !row.fromStart).map((row) => row.name);
    expect(atStart.filter((name) => later.includes(name))).toEqual([]);
  });

  it("are all served after one request of each kind (an append the pipeline derives from, its reflection)", async () => {
    const sessionId = await createSession(runtime.app, "counted");
    expect(
      (await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events: [message("user", "I keep bees in my garden.")] }))
        .status,
    ).toBe(201);
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "counted");
    const after = await served();
    const due = documented.filter((row) => holds(row.condition)).map((row) => row.name);
    expect(due.filter((name) => !after.includes(name))).toEqual([]);
    const elsewhere = documented.filter((row) => !holds(row.condition)).map((row) => row.name);
    expect(after.filter((name) => elsewhere.includes(name))).toEqual([]);
  });
});
