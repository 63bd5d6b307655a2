import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { memories } from "../../src/db/schema/index.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

/**
 * The periodic contradiction audit (GET is the dry run, POST repairs) on facts the write path let
 * stand: statements that arrived out of order (an older "single" written after a newer partner),
 * and facts stored before a contradiction rule existed (inserted as such).
 */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

const fact = (userId: string, key: string, value: unknown, content: string, validAt: string) =>
  call(runtime.app, "POST", "/v1/memories", {
    user_id: userId,
    type: "semantic",
    subtype: "profile",
    key,
    value,
    content,
    valid_at: validAt,
  });

/** A fact stored as it was before the rules that would have ended what it contradicts. */
async function storedBeforeTheRules(userId: string, key: string, value: Record<string, unknown>, content: string, validAt: string) {
  await runtime.database.db.insert(memories).values({
    id: randomUUID(),
    appId: "default",
    userId,
    type: "semantic",
    subtype: "preference",
    key,
    value,
    content,
    validAt: new Date(validAt),
    contentHash: `${userId}:${key}`,
  });
}

const current = async (userId: string) =>
  ((await call(runtime.app, "GET", `/v1/memories?user_id=${userId}&type=semantic&limit=100`)).body.memories as { content: string }[]).map(
    (memory) => memory.content,
  );

describe("contradiction audit", () => {
  it("reports pairs that cannot both be true without changing anything, then repairs them with history", async () => {
    // The newer partner is written first; the older "single", imported later, ends nothing newer than itself.
    expect((await fact("aud", "profile:partner", "Noah", "User's partner is Noah.", "2025-03-01T10:00:00Z")).status).toBe(201);
    expect((await fact("aud", "profile:relationship_status", "single", "User is single.", "2025-01-10T10:00:00Z")).status).toBe(201);
    await storedBeforeTheRules(
      "aud",
      "attitude:coffee",
      { attitude: "loves", polarity: 1, object: "coffee" },
      "User loves coffee.",
      "2025-01-05T09:00:00Z",
    );
    await storedBeforeTheRules(
      "aud",
      "consumes:coffee",
      { item: "coffee", verb: "drink", stopped: true, never: false },
      "User no longer drinks coffee.",
      "2025-02-01T09:00:00Z",
    );
    await fact("aud", "profile:location", "Lisbon", "User lives in Lisbon.", "2025-01-02T10:00:00Z");
    const before = await current("aud");
    expect(before).toEqual(expect.arrayContaining(["User is single.", "User's partner is Noah.", "User loves coffee."]));

    const dry = await call(runtime.app, "GET", "/v1/users/aud/facts/audit");
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ user_id: "aud", app_id: "default", dry_run: true, repaired: 0 });
    const pairs = (dry.body.pairs as { kept: { content: string }; ended: { content: string }; reason: string }[]).map(
      (pair) => `${pair.ended.content} <- ${pair.kept.content}: ${pair.reason}`,
    );
    expect(pairs.sort()).toEqual([
      "User is single. <- User's partner is Noah.: a partner now",
      "User loves coffee. <- User no longer drinks coffee.: no longer: same thing (coffee)",
    ]);
    expect((await current("aud")).sort()).toEqual(before.sort());

    const repaired = await call(runtime.app, "POST", "/v1/users/aud/facts/audit", {});
    expect(repaired.status).toBe(200);
    expect(repaired.body).toMatchObject({ dry_run: false, repaired: 2 });
    const after = await current("aud");
    expect(after).toEqual(expect.arrayContaining(["User's partner is Noah.", "User no longer drinks coffee.", "User lives in Lisbon."]));
    expect(after).not.toContain("User is single.");
    expect(after).not.toContain("User loves coffee.");

    const ended = (repaired.body.pairs as { ended: { id: string; content: string } }[]).find(
      (pair) => pair.ended.content === "User loves coffee.",
    );
    const history = (await call(runtime.app, "GET", `/v1/memories/${ended?.ended.id}/history`)).body.history as {
      operation: string;
      reason: string | null;
    }[];
    expect(history.map((entry) => `${entry.operation} ${entry.reason}`)).toContain(
      'DELETE audit: contradicted by "User no longer drinks coffee." (no longer: same thing (coffee))',
    );
    const retracted = (await call(runtime.app, "GET", `/v1/memories/${ended?.ended.id}`)).body;
    expect(retracted.invalid_at).toBe("2025-02-01T09:00:00.000Z");

    // Repaired: a second audit finds nothing, and repairs nothing.
    expect((await call(runtime.app, "GET", "/v1/users/aud/facts/audit")).body).toMatchObject({ pairs: [], repaired: 0 });
    expect((await call(runtime.app, "POST", "/v1/users/aud/facts/audit", {})).body).toMatchObject({ pairs: [], repaired: 0 });
  });

  it("audits one user of one app: another user's facts are not read", async () => {
    await fact("aud-a", "profile:partner", "Ren", "User's partner is Ren.", "2025-03-01T10:00:00Z");
    await fact("aud-b", "profile:relationship_status", "single", "User is single.", "2025-01-10T10:00:00Z");
    expect((await call(runtime.app, "GET", "/v1/users/aud-a/facts/audit")).body.pairs).toEqual([]);
    expect((await call(runtime.app, "GET", "/v1/users/aud-a/facts/audit?app_id=other")).body).toMatchObject({ app_id: "other", pairs: [] });
  });

  it("refuses a malformed request with the field named", async () => {
    const bad = await call(runtime.app, "POST", "/v1/users/aud/facts/audit", { app_id: "" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("app_id");
  });
});
