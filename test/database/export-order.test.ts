import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const USER = "tied-user";
/** Ids that sort in the opposite order to the one the rows are written in. */
const ids = (prefix: string) => [9, 7, 5, 3, 1].map((n) => `${prefix}${n}`.padEnd(8, "0") + "-0000-4000-8000-000000000000");

describe("user export order", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ LOG_LEVEL: "error" });
    const at = "2026-03-01T10:00:00Z";
    // One pipeline step writes several memories and history rows with the same timestamp.
    for (const id of ids("a")) {
      await runtime.database.db.execute(
        sql`INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at, created_at)
            VALUES (${id}, 'default', ${USER}, 'episodic', 'turn', ${`turn ${id}`}, ${id}, ${at}, ${at})`,
      );
    }
    for (const [index, id] of ids("b").entries()) {
      await runtime.database.db.execute(
        sql`INSERT INTO memory_history (id, memory_id, app_id, user_id, operation, actor, created_at)
            VALUES (${id}, ${ids("a")[index]}, 'default', ${USER}, 'ADD', 'fast-replay', ${at})`,
      );
    }
  });
  afterAll(() => runtime?.close());

  it("orders rows that share a timestamp by id (history by insertion), so two exports of the same data are identical", async () => {
    const exported = async () => (await runtime.app.request(`/v1/users/${USER}/export`)).text();
    const first = await exported();
    const records = first
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { kind: string; id: string });
    const idsOf = (kind: string) => records.filter((record) => record.kind === kind).map((record) => record.id);
    expect(idsOf("memory")).toEqual([...ids("a")].sort());
    // A memory's history reads in the order its changes were written (an UPDATE before the STAGE_CHANGE it caused).
    expect(idsOf("history")).toEqual(ids("b"));
    expect(await exported()).toBe(first);
  });
});
