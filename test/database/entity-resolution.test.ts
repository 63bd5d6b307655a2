import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../../src/db/database.js";
import { queryRows } from "../../src/db/database.js";
import { EntityIndex } from "../../src/memory/graph/entity-index.js";
import { resolveEntity, SAME_ENTITY_SIMILARITY } from "../../src/memory/graph/entity-resolution.js";
import { createEntity } from "../../src/memory/graph/entity-writes.js";
import type { GraphWriter } from "../../src/memory/graph/graph-history.js";
import { oneConnectionDatabase } from "../fixtures/database.js";

/**
 * Entity resolution by the description's embedding (issue 40): a name that matches no node by
 * any of its names, nor as a first name, is the node whose description is within
 * SAME_ENTITY_SIMILARITY of its own and whose names share a word with it — and only then.
 */
let database: { handle: DatabaseHandle; close(): Promise<void> };
beforeAll(async () => {
  database = await oneConnectionDatabase();
});
afterAll(() => database.close());

const MODEL = "test-4";
const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
};
const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * (b[i] as number), 0);
const grandmother = unit([1, 0.2, 0, 0]);
const nearlyTheSame = unit([1, 0.3, 0.05, 0]);
const someoneElse = unit([0, 0, 1, 0.4]);

async function resolved(name: string, kind: "person" | "pet", values: number[]) {
  return database.handle.db.transaction(async (tx) => {
    const writer: GraphWriter = { tx, appId: "default", userId: "rosa-family", actor: "test", now: new Date("2025-06-01T00:00:00Z") };
    const index = await EntityIndex.load(tx, { appId: "default", userId: "rosa-family" });
    return resolveEntity(writer, index, { name, kind, validAt: writer.now, summary: "described", vector: { values, model: MODEL } });
  });
}

describe("entity resolution by description", () => {
  let rosa: string;
  beforeAll(async () => {
    expect(cosine(grandmother, nearlyTheSame)).toBeGreaterThan(SAME_ENTITY_SIMILARITY);
    expect(cosine(grandmother, someoneElse)).toBeLessThan(SAME_ENTITY_SIMILARITY);
    rosa = await database.handle.db.transaction(async (tx) => {
      const writer: GraphWriter = { tx, appId: "default", userId: "rosa-family", actor: "test", now: new Date("2025-05-01T00:00:00Z") };
      const index = await EntityIndex.load(tx, { appId: "default", userId: "rosa-family" });
      const node = await createEntity(writer, index, {
        name: "Grandma Rosa",
        kind: "person",
        summary: "the user's grandmother in Porto",
        validAt: writer.now,
        vector: { values: grandmother, model: MODEL },
      });
      return node.id;
    });
  });

  it("resolves a name sharing a word and a description within the bound to the node, which takes the name", async () => {
    const node = await resolved("Rosa", "person", nearlyTheSame);
    expect(node.id).toBe(rosa);
    expect(node.aliases).toContain("Rosa");
    const [history] = await queryRows<{ count: number }>(
      database.handle.db,
      sql`SELECT count(*)::int AS count FROM graph_history WHERE entity_id = ${rosa} AND operation = 'ALIAS'`,
    );
    expect(history?.count).toBe(1);
  });

  it("makes a node of its own for the same description under a name that shares no word", async () => {
    const node = await resolved("Rosie", "pet", grandmother);
    expect(node.id).not.toBe(rosa);
  });

  it("makes a node of its own for a name sharing a word whose description is far", async () => {
    const node = await resolved("Nana Rosa", "person", someoneElse);
    expect(node.id).not.toBe(rosa);
    const current = await queryRows<{ name: string }>(
      database.handle.db,
      sql`SELECT name FROM entities WHERE user_id = 'rosa-family' AND expired_at IS NULL ORDER BY name`,
    );
    expect(current.map((row) => row.name)).toEqual(["Grandma Rosa", "Nana Rosa", "Rosie"]);
  });
});
