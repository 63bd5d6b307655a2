import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { queryRows } from "../../src/db/database.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * The entity graph the offline extractor and the graph writer build from conversations (issue 40):
 * the README walk-through, and a conversation with an alias, a renamed person, a moved place and a
 * retracted relation, read back from the tables on either database.
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

/** One session on `day` of March 2025 with these turns (`[role, content, speaker?]`), ended and consolidated. */
async function session(
  userId: string,
  day: number,
  turns: [role: "user" | "assistant", content: string, speaker?: string][],
): Promise<void> {
  const startedAt = new Date(Date.UTC(2025, 2, day, 10));
  const sessionId = await createSession(runtime.app, userId, { started_at: startedAt.toISOString() });
  const events = turns.map(([role, content, speaker], index) =>
    message(role, content, {
      occurred_at: new Date(startedAt.getTime() + index * 60_000).toISOString(),
      ...(speaker ? { data: { speaker } } : {}),
    }),
  );
  expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  await waitForSettled(runtime.app, userId);
}

interface EntityRow {
  id: string;
  name: string;
  kind: string;
  self: boolean;
  aliases: string[];
  merged_into: string | null;
  expired: boolean;
}
interface RelationRow {
  subject: string;
  predicate: string;
  object: string;
  current: boolean;
  valid_at: string;
  invalid_at: string | null;
  expired: boolean;
  superseded: boolean;
}

const entitiesOf = (userId: string) =>
  queryRows<EntityRow>(
    runtime.database.db,
    sql`SELECT id, name, kind, self, aliases, merged_into, expired_at IS NOT NULL AS expired FROM entities WHERE user_id = ${userId} ORDER BY valid_at, name`,
  );
const current = async (userId: string) => (await entitiesOf(userId)).filter((entity) => !entity.expired);
/** Every relation of the user as "subject predicate object", with its times. */
const relationsOf = (userId: string) =>
  queryRows<RelationRow>(
    runtime.database.db,
    sql`SELECT s.name AS subject, r.predicate, coalesce(o.name, r.object_value) AS object,
               (r.expired_at IS NULL AND r.invalid_at IS NULL) AS current, r.valid_at::text, r.invalid_at::text,
               r.expired_at IS NOT NULL AS expired, r.superseded_by IS NOT NULL AS superseded
          FROM relations r JOIN entities s ON s.id = r.subject_id LEFT JOIN entities o ON o.id = r.object_id
         WHERE r.user_id = ${userId} ORDER BY r.valid_at, r.predicate`,
  );
const edges = (rows: RelationRow[]) => rows.map((row) => `${row.subject} ${row.predicate} ${row.object}`);

describe("the README walk-through", () => {
  beforeAll(async () => {
    await session("ana", 3, [
      ["user", "I just moved to Lisbon for a job at a design studio."],
      ["assistant", "Congratulations! How do you like it so far?"],
      ["user", "Please remember that my daughter Maya starts school on September 4th."],
    ]);
  });

  it("has the user, the place, the studio and the daughter, related as said", async () => {
    const nodes = await current("ana");
    expect(nodes.map((node) => `${node.name} ${node.kind}${node.self ? " self" : ""}`).sort()).toEqual([
      "Lisbon place",
      "Maya person",
      "User person self",
      "design studio organisation",
    ]);
    expect(edges((await relationsOf("ana")).filter((row) => row.current)).sort()).toEqual([
      "User daughter Maya",
      "User lives_in Lisbon",
      "User works_at design studio",
    ]);
  });

  it("a move supersedes the home and keeps it; quitting retracts the job", async () => {
    await session("ana", 20, [
      ["user", "We moved to Porto."],
      ["user", "I quit the design studio."],
    ]);
    const rows = await relationsOf("ana");
    expect(edges(rows.filter((row) => row.current)).sort()).toEqual(["User daughter Maya", "User lives_in Porto"]);
    const lisbon = rows.find((row) => row.object === "Lisbon");
    expect(lisbon).toMatchObject({ expired: true, superseded: true });
    expect(lisbon?.invalid_at?.slice(0, 10)).toBe("2025-03-20");
    // Retracted, not superseded: true until the statement, and kept.
    const studio = rows.find((row) => row.object === "design studio");
    expect(studio).toMatchObject({ expired: false, superseded: false });
    expect(studio?.invalid_at?.slice(0, 10)).toBe("2025-03-20");
  });
});

describe("aliases, a renamed person, a moved place and a retracted relation", () => {
  beforeAll(async () => {
    await session("noor", 2, [
      ["user", "My daughter Maya started first grade."],
      ["user", "Maya's teacher is Mr. Ortiz. He lives in Chicago."],
      ["user", "My best friend Alexander, everyone calls him Sasha, is visiting."],
      ["user", "My sister Kim is great. Tom is my boss."],
      ["user", "Mr. Ortiz lives in Chicago."],
    ]);
    await session("noor", 12, [
      ["user", "Sasha works at Google now."],
      ["user", "Mr. Ortiz moved to Boston."],
      ["user", "My sister Kim now goes by Kai."],
      ["user", "Tom is no longer my boss."],
    ]);
    await session("noor", 25, [
      ["user", "Maya won the spelling bee!"],
      ["assistant", "That's wonderful news about Maya!"],
      ["user", "Kai started working at Acme."],
    ]);
  });

  it("one node per person: the alias and the new name resolve to the same node", async () => {
    const nodes = await current("noor");
    const names = nodes.map((node) => node.name);
    expect(names.filter((name) => ["Alexander", "Sasha"].includes(name))).toEqual(["Alexander"]);
    expect(nodes.find((node) => node.name === "Alexander")?.aliases).toContain("Sasha");
    expect(names).toContain("Kai");
    expect(names).not.toContain("Kim");
    expect(nodes.find((node) => node.name === "Kai")?.aliases).toContain("Kim");
    expect(new Set(names).size).toBe(names.length);
  });

  it("relations resolve through the alias and the rename, the move supersedes, the retraction ends", async () => {
    const rows = await relationsOf("noor");
    expect(edges(rows.filter((row) => row.current)).sort()).toEqual([
      "Alexander works_at Google",
      "Kai works_at Acme",
      "Maya teacher Mr. Ortiz",
      "Mr. Ortiz lives_in Boston",
      "User best_friend Alexander",
      "User daughter Maya",
      "User sister Kai",
    ]);
    const chicago = rows.find((row) => row.object === "Chicago");
    expect(chicago).toMatchObject({ current: false, expired: true, superseded: true });
    expect(chicago?.invalid_at?.slice(0, 10)).toBe("2025-03-12");
    const boss = rows.find((row) => row.predicate === "boss");
    expect(boss).toMatchObject({ subject: "User", object: "Tom", current: false, expired: false });
    expect(boss?.invalid_at?.slice(0, 10)).toBe("2025-03-12");
  });

  it("a later turn that names Maya is tied to her node; a turn addressing no one by name is not", async () => {
    const mentions = await queryRows<{ content: string }>(
      runtime.database.db,
      sql`SELECT e.content FROM entity_mentions em JOIN entities n ON n.id = em.entity_id JOIN session_events e ON e.id = em.event_id
           WHERE n.user_id = 'noor' AND n.name = 'Maya' ORDER BY e.occurred_at`,
    );
    expect(mentions.map((row) => row.content)).toEqual([
      "My daughter Maya started first grade.",
      "Maya's teacher is Mr. Ortiz. He lives in Chicago.",
      "Maya won the spelling bee!",
      "That's wonderful news about Maya!",
    ]);
  });

  it("the rename and the alias are in the history", async () => {
    const history = await queryRows<{ name: string; operation: string; before: unknown; after: unknown }>(
      runtime.database.db,
      sql`SELECT n.name, h.operation, h.before, h.after FROM graph_history h JOIN entities n ON n.id = h.entity_id
           WHERE n.user_id = 'noor' AND n.name IN ('Kai', 'Alexander') AND h.relation_id IS NULL ORDER BY h.position`,
    );
    expect(history.filter((entry) => entry.name === "Alexander")[0]).toMatchObject({ operation: "ADD", after: { aliases: ["Sasha"] } });
    expect(history.filter((entry) => entry.name === "Kai").map((entry) => entry.operation)).toEqual(["ADD", "RENAME"]);
    expect(history.find((entry) => entry.operation === "RENAME")).toMatchObject({
      before: { name: "Kim" },
      after: { name: "Kai", valid_at: "2025-03-12T10:02:00.000Z" },
    });
  });
});

describe("named participants", () => {
  it("a named participant's turns are theirs: their relations, and what they said is tied to them", async () => {
    await session("caro", 5, [
      ["user", "Hi Wren! I joined a rowing club on Tuesday.", "Ottilie"],
      ["assistant", "Nice one, Ottilie! We adopted a cat named Quince.", "Wren"],
      ["assistant", "My husband Lorcan spoils her.", "Wren"],
    ]);
    const nodes = await current("caro");
    expect(nodes.find((node) => node.self)?.name).toBe("Ottilie");
    expect(edges((await relationsOf("caro")).filter((row) => row.current)).sort()).toEqual([
      "Quince species cat",
      "Wren partner Lorcan",
      "Wren pet Quince",
    ]);
    const said = await queryRows<{ name: string; n: number }>(
      runtime.database.db,
      sql`SELECT n.name, count(*)::int AS n FROM entity_mentions em JOIN entities n ON n.id = em.entity_id
           WHERE n.user_id = 'caro' AND em.said GROUP BY n.name ORDER BY n.name`,
    );
    expect(said).toEqual([
      { name: "Ottilie", n: 1 },
      { name: "Wren", n: 2 },
    ]);
  });
});

describe("a daughter named in one turn, her teacher in the next, the teacher's move a month later", () => {
  /** One session on `day` (days from 1 April 2025) with these user turns, ended and consolidated. */
  const spring = async (day: number, said: string[]) => {
    const startedAt = new Date(Date.UTC(2025, 3, day, 9));
    const sessionId = await createSession(runtime.app, "ines", { started_at: startedAt.toISOString() });
    const events = said.map((content, index) =>
      message("user", content, { occurred_at: new Date(startedAt.getTime() + index * 60_000).toISOString() }),
    );
    expect((await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, { events })).status).toBe(201);
    await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
    await waitForSettled(runtime.app, "ines");
  };
  beforeAll(async () => {
    await spring(2, ["My daughter Elodie started at the village school this week.", "Elodie's teacher is Mr. Achterberg."]);
    await spring(33, ["Mr. Achterberg moved to Zwolle over the summer break."]);
  });

  it("gives two linked people offline, read through the entities API: the user's daughter, and her teacher who moved", async () => {
    const found = (await call(runtime.app, "GET", "/v1/entities?user_id=ines&q=Elodie")).body.entities as { id: string; name: string }[];
    const elodie = found.find((entity) => entity.name === "Elodie");
    expect(elodie).toBeDefined();
    const detail = (await call(runtime.app, "GET", `/v1/entities/${elodie?.id}`)).body as {
      entity: { kind: string };
      relations: { subject: string; predicate: string; object: string; object_id: string | null; current: boolean }[];
    };
    expect(detail.entity.kind).toBe("person");
    const held = detail.relations
      .filter((relation) => relation.current)
      .map((relation) => `${relation.subject} ${relation.predicate} ${relation.object}`);
    expect(held.sort()).toEqual(["Elodie teacher Mr. Achterberg", "User daughter Elodie"]);
    const teacherId = detail.relations.find((relation) => relation.predicate === "teacher")?.object_id;
    expect(teacherId).toBeTruthy();
    const teacher = (await call(runtime.app, "GET", `/v1/entities/${teacherId}`)).body as typeof detail & { entity: { name: string } };
    expect(teacher.entity).toMatchObject({ name: "Mr. Achterberg", kind: "person" });
    expect(
      teacher.relations
        .filter((relation) => relation.current)
        .map((relation) => `${relation.subject} ${relation.predicate} ${relation.object}`)
        .sort(),
    ).toEqual(["Elodie teacher Mr. Achterberg", "Mr. Achterberg lives_in Zwolle"]);
    // One node per person: the teacher named again a month later is the same node, not a second one.
    const people = (await current("ines")).filter((node) => node.kind === "person" && !node.self).map((node) => node.name);
    expect(people.sort()).toEqual(["Elodie", "Mr. Achterberg"]);
  });
});
