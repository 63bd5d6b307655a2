import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { WORD_INDEX_MIN_CORPUS, wordMatch } from "../../src/memory/recall/engines/sql-bm25/corpus-statistics.js";
import { m, visibleAt } from "../../src/memory/visibility.js";
import { startTestRuntime } from "../fixtures/runtime.js";

/** The parts of an EXPLAIN (ANALYZE, FORMAT JSON) plan this test reads. */
interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe("the word index, keyed by user", () => {
  let runtime: Runtime;
  const ownMatches = 300;

  // A large corpus (so the text arm matches words through the index) whose word another user's
  // memories hold many more times, in a table where the word is uncommon (so the planner uses an index).
  const seed = (userId: string, count: number, everyNth: number) =>
    runtime.database.db.execute(sql`
      INSERT INTO memories (id, app_id, user_id, type, subtype, content, content_hash, valid_at)
      SELECT gen_random_uuid(), 'default', ${userId}, 'episodic', 'turn',
             CASE WHEN i % ${everyNth} = 0 THEN 'We lit the lantern on night ' || i ELSE 'Ordinary day number ' || i END,
             md5(${userId} || i), now() - interval '1 day'
        FROM generate_series(1, ${count}) AS i`);

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await seed("reader", WORD_INDEX_MIN_CORPUS + 2_000, Math.floor((WORD_INDEX_MIN_CORPUS + 2_000) / ownMatches));
    await seed("neighbour", 20_000, 10);
    await seed("quiet", 20_000, 1_000_000);
    await runtime.database.db.execute(sql`ANALYZE memories`);
  }, 120_000);
  afterAll(() => runtime?.close());

  it("reads only the user's own matches of a word from the table, not every user's", async () => {
    const visible = visibleAt(m, { appId: "default", userId: "reader" }, { now: new Date() });
    // The text arm's candidate lookup: one word's matches among the user's visible memories.
    const [explained] = await queryRows<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      runtime.database.db,
      sql`EXPLAIN (ANALYZE, FORMAT JSON) SELECT m.id FROM memories m
           WHERE ${visible} AND ${wordMatch(sql`'lantern'::tsquery`, true)} LIMIT 1000`,
    );
    const root = explained?.["QUERY PLAN"][0]?.Plan;
    if (!root) throw new Error("EXPLAIN returned no plan");
    const plan = nodes(root);
    expect(plan.some((node) => node["Index Name"] === "memories_user_tsv_idx")).toBe(true);
    const heap = plan.filter((node) => node["Node Type"] === "Bitmap Heap Scan" || node["Node Type"] === "Index Scan");
    const found = heap.reduce((sum, node) => sum + (node["Actual Rows"] ?? 0), 0);
    const discarded = heap.reduce(
      (sum, node) => sum + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0),
      0,
    );
    expect(found).toBe(ownMatches);
    // Keyed by the word alone, the index handed the heap the neighbour's 2,000 matches to filter out.
    expect(discarded).toBeLessThan(ownMatches);
  });
});
