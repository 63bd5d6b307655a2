import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * The entity graph through the API (issue 40): entities by name, one entity's relations current
 * and past with their sources, `as_of` on both, the graph channel's receipts in search, erasure.
 */
let runtime: Runtime;
beforeAll(async () => {
  // The graph channel is opt-in; its receipts are tested here.
  runtime = await startTestRuntime({ RECALL_GRAPH: "true" });
  await session("noor", 2, [
    "My daughter Maya started first grade.",
    "Maya's teacher is Mr. Ortiz. He is very patient.",
    "Mr. Ortiz lives in Chicago.",
  ]);
  await session("noor", 12, ["Mr. Ortiz moved to Boston."]);
  await session("other", 2, ["My son Leo likes Mr. Ortiz."]);
  await session("dana", 3, ["My name is Dana and I live in Porto."]);
}, 300_000);
afterAll(() => runtime.close());

/** One session on `day` of March 2025 with these user turns, ended and consolidated. */
async function session(userId: string, day: number, turns: string[]): Promise<void> {
  const startedAt = new Date(Date.UTC(2025, 2, day, 10));
  const sessionId = await createSession(runtime.app, userId, { started_at: startedAt.toISOString() });
  const events = turns.map((content, index) =>
    message("user", content, { occurred_at: new Date(startedAt.getTime() + index * 60_000).toISOString() }),
  );
  expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  await waitForSettled(runtime.app, userId);
}

interface Relation {
  subject: string;
  predicate: string;
  object: string;
  current: boolean;
  invalid_at: string | null;
  sources: { event_id: string; seq: number }[];
}
const line = (relation: Relation) => `${relation.subject} ${relation.predicate} ${relation.object}`;

async function ortiz(asOf?: string) {
  const listed = await call(runtime.app, "GET", `/v1/entities?user_id=noor&q=${encodeURIComponent("ortiz")}`);
  expect(listed.status).toBe(200);
  expect(listed.body.entities.map((entity: { name: string }) => entity.name)).toEqual(["Mr. Ortiz"]);
  const read = await call(runtime.app, "GET", `/v1/entities/${listed.body.entities[0].id}${asOf ? `?as_of=${asOf}` : ""}`);
  expect(read.status).toBe(200);
  return read.body as { entity: { name: string; user_id: string }; relations: Relation[]; mentions: { seq: number }[] };
}

describe("GET /v1/entities", () => {
  it("finds an entity by any of its names or the start of one, only the user's own", async () => {
    const byPrefix = await call(runtime.app, "GET", "/v1/entities?user_id=noor&q=Ort");
    expect(byPrefix.body.entities.map((entity: { name: string }) => entity.name)).toEqual(["Mr. Ortiz"]);
    const all = await call(runtime.app, "GET", "/v1/entities?user_id=noor");
    const names = all.body.entities.map((entity: { name: string }) => entity.name);
    expect(names).toEqual(expect.arrayContaining(["Maya", "Mr. Ortiz", "Chicago", "Boston"]));
    expect(names).not.toContain("Leo");
    expect(all.body.entities[0].self).toBe(true);
  });

  it("names the user's own node by the name they give, with no second node for them", async () => {
    const all = await call(runtime.app, "GET", "/v1/entities?user_id=dana");
    expect(all.body.entities.map((entity: { name: string; self: boolean }) => [entity.name, entity.self])).toEqual([
      ["Dana", true],
      ["Porto", false],
    ]);
  });

  it("as_of lists only what was named by then", async () => {
    const before = await call(runtime.app, "GET", "/v1/entities?user_id=noor&as_of=2025-03-01T00:00:00Z");
    expect(before.body.entities).toEqual([]);
    const between = await call(runtime.app, "GET", "/v1/entities?user_id=noor&as_of=2025-03-05T00:00:00Z");
    const names = between.body.entities.map((entity: { name: string }) => entity.name);
    expect(names).toContain("Chicago");
    expect(names).not.toContain("Boston");
  });

  it("refuses a bad as_of and an unknown entity with the error body", async () => {
    const bad = await call(runtime.app, "GET", "/v1/entities?user_id=noor&as_of=yesterday");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("as_of");
    const missing = await call(runtime.app, "GET", "/v1/entities/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });
});

describe("GET /v1/entities/:id", () => {
  it("has its relations from both ends, the move current and the old home past, each with its source event", async () => {
    const { relations, mentions } = await ortiz();
    const current = relations.filter((relation) => relation.current).map(line);
    const past = relations.filter((relation) => !relation.current).map(line);
    expect(current.sort()).toEqual(["Maya teacher Mr. Ortiz", "Mr. Ortiz lives_in Boston"]);
    expect(past).toEqual(["Mr. Ortiz lives_in Chicago"]);
    expect(relations.find((relation) => relation.object === "Chicago")?.invalid_at?.slice(0, 10)).toBe("2025-03-12");
    for (const relation of relations) expect(relation.sources.length).toBeGreaterThan(0);
    const [event] = await queryRows<{ content: string }>(
      runtime.database.db,
      sql`SELECT content FROM session_events WHERE id = ${relations.find((relation) => relation.object === "Boston")?.sources[0]?.event_id}`,
    );
    expect(event?.content).toBe("Mr. Ortiz moved to Boston.");
    expect(mentions.length).toBeGreaterThanOrEqual(3);
  });

  it("as_of reads the world then: the old home current, the new one not yet there", async () => {
    const { relations } = await ortiz("2025-03-05T00:00:00Z");
    expect(
      relations
        .filter((relation) => relation.current)
        .map(line)
        .sort(),
    ).toEqual(["Maya teacher Mr. Ortiz", "Mr. Ortiz lives_in Chicago"]);
    expect(relations.map(line)).not.toContain("Mr. Ortiz lives_in Boston");
  });
});

describe("the graph channel in search", () => {
  it("brings in the teacher's memories two hops from the user, and the receipt says which hop", async () => {
    const found = await call(runtime.app, "POST", "/v1/memories/search", {
      user_id: "noor",
      query: "Where does my daughter's teacher live?",
      explain: true,
      limit: 10,
    });
    expect(found.status).toBe(200);
    const viaGraph = found.body.memories.flatMap(
      (memory: { content: string; signals: { channels: { channel: string; via?: string }[] } }) =>
        memory.signals.channels.filter((place) => place.channel === "graph").map((place) => `${memory.content} | ${place.via}`),
    );
    expect(viaGraph.some((entry: string) => /Boston/.test(entry) && /→ daughter → Maya → teacher → Mr\. Ortiz, 2 hops/.test(entry))).toBe(
      true,
    );
    const boston = found.body.memories.find((memory: { content: string }) => /Boston/.test(memory.content));
    expect(boston.why ?? boston.signals).toBeDefined();
  });
});

describe("the user's own node in the graph channel", () => {
  const graphVias = async (query: string) => {
    const found = await call(runtime.app, "POST", "/v1/memories/search", { user_id: "noor", query, explain: true, limit: 10 });
    expect(found.status).toBe(200);
    return found.body.memories.flatMap((memory: { signals: { channels: { channel: string; via?: string }[] } }) =>
      memory.signals.channels.filter((place) => place.channel === "graph").map((place) => place.via as string),
    );
  };

  it("is where an agent's question about 'the user' walks from, along the relation asked", async () => {
    const vias = await graphVias("Who is the user's daughter?");
    expect(vias.length).toBeGreaterThan(0);
    expect(vias.every((via: string) => /→ daughter → Maya/.test(via))).toBe(true);
  });

  it("is a hub the walk does not spread from when no relation is asked, and its own turns are never ranked by it", async () => {
    // "the user" names the user's node, but the question asks along none of its relations.
    expect(await graphVias("What did the user say?")).toEqual([]);
    for (const via of await graphVias("Where does my daughter's teacher live?")) expect(via).not.toMatch(/^\S+ \(named\)$/);
  });
});

describe("the graph through MCP", () => {
  it("finds an entity and reads its relations, and another user's entity is not found", async () => {
    const transport = new StreamableHTTPClientTransport(new URL("http://localhost/v1/mcp"), {
      fetch: (input, init) => Promise.resolve(runtime.app.request(String(input), init)),
    });
    const client = new Client({ name: "graph-agent", version: "1.0.0" });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
      return { isError: result.isError === true, text: result.content[0]?.text ?? "" };
    };
    const found = JSON.parse((await call("find_entities", { user_id: "noor", q: "Ortiz" })).text);
    expect(found.entities.map((entity: { name: string }) => entity.name)).toEqual(["Mr. Ortiz"]);
    const read = JSON.parse((await call("read_entity", { user_id: "noor", entity_id: found.entities[0].id })).text);
    expect(read.relations.filter((relation: Relation) => relation.current).map(line)).toContain("Mr. Ortiz lives_in Boston");
    const asOf = JSON.parse(
      (await call("read_entity", { user_id: "noor", entity_id: found.entities[0].id, as_of: "2025-03-05T00:00:00Z" })).text,
    );
    expect(asOf.relations.filter((relation: Relation) => relation.current).map(line)).toContain("Mr. Ortiz lives_in Chicago");
    const stolen = await call("read_entity", { user_id: "other", entity_id: found.entities[0].id });
    expect(stolen.isError).toBe(true);
    expect(stolen.text).toMatch(/not found/);
    await client.close();
  });
});

describe("erasure", () => {
  it("erasing a user deletes their graph, and only theirs", async () => {
    const erased = await call(runtime.app, "DELETE", "/v1/users/noor");
    expect(erased.status).toBe(200);
    expect(erased.body.erased.entities).toBeGreaterThan(3);
    expect(erased.body.erased.relations).toBeGreaterThan(2);
    const left = await queryRows<{ user_id: string; n: number }>(
      runtime.database.db,
      sql`SELECT user_id, count(*)::int AS n FROM (
            SELECT user_id FROM entities UNION ALL SELECT user_id FROM relations UNION ALL SELECT user_id FROM graph_history
            UNION ALL SELECT n.user_id FROM entity_mentions m JOIN entities n ON n.id = m.entity_id) t
          WHERE user_id IN ('noor', 'other') GROUP BY user_id`,
    );
    expect(left.map((row) => row.user_id)).toEqual(["other"]);
    expect((await call(runtime.app, "GET", "/v1/entities?user_id=noor")).body.entities).toEqual([]);
  });
});
