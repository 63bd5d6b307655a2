import { describe, expect, it } from "vitest";
import { diffMemories, type MemoryState } from "./memory-diff.js";

let ids = 0;
const memory = (fields: Partial<MemoryState>): MemoryState => ({
  id: `m${++ids}`,
  type: "semantic",
  subtype: "profile",
  key: null,
  content: "",
  value: null,
  traitStage: null,
  sessionId: "s1",
  metadata: {},
  contentHash: fields.content ?? "",
  ...fields,
});

describe("diffMemories", () => {
  it("matches facts by key, turns by event, summaries by chunk, the rest by content", () => {
    const stored = [
      memory({ key: "profile:location", content: "User lives in Berlin.", value: "Berlin" }),
      memory({ key: "profile:occupation", content: "User works as a nurse.", value: "nurse" }),
      memory({ type: "episodic", subtype: "turn", content: "user: hi", metadata: { seq: 1 } }),
      memory({ type: "episodic", subtype: "summary", content: "The user said hi.", metadata: { from_seq: 1 } }),
      memory({ type: "insight", subtype: null, content: "Likes mornings." }),
    ];
    const derived = [
      memory({ key: "profile:location", content: "User lives in Berlin.", value: "Berlin" }),
      memory({ key: "profile:occupation", content: "User works as a doctor.", value: "doctor" }),
      memory({ type: "episodic", subtype: "turn", content: "user: hi", metadata: { seq: 1 } }),
      memory({ type: "episodic", subtype: "summary", content: "The user greeted.", metadata: { from_seq: 1 } }),
      memory({ type: "insight", subtype: null, content: "Prefers mornings." }),
      memory({ key: "pet:dog:rex", content: "User has a dog named Rex.", value: "Rex" }),
    ];
    const diff = diffMemories(stored, derived);
    expect(diff.unchanged).toBe(2);
    expect(diff.changed.map(({ before, after }) => [before.key ?? before.subtype, after.content])).toEqual([
      ["profile:occupation", "User works as a doctor."],
      ["summary", "The user greeted."],
    ]);
    expect(diff.removed.map((m) => m.content)).toEqual(["Likes mornings."]);
    expect(diff.added.map((m) => m.content)).toEqual(["Prefers mornings.", "User has a dog named Rex."]);
  });

  it("pairs several memories under one key by what they assert, and counts a value or stage change", () => {
    const stored = [
      memory({ key: "allergy:nuts", content: "A", value: { severe: true } }),
      memory({ key: "allergy:nuts", content: "B" }),
      memory({ type: "trait", key: "likes:tea", content: "Likes tea.", traitStage: "emerging" }),
    ];
    const derived = [
      memory({ key: "allergy:nuts", content: "B" }),
      memory({ key: "allergy:nuts", content: "A", value: { severe: false } }),
      memory({ type: "trait", key: "likes:tea", content: "Likes tea.", traitStage: "established" }),
    ];
    const diff = diffMemories(stored, derived);
    expect(diff.unchanged).toBe(1);
    expect(diff.changed.map(({ before, after }) => [before.value ?? before.traitStage, after.value ?? after.traitStage])).toEqual([
      [{ severe: true }, { severe: false }],
      ["emerging", "established"],
    ]);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
  });
});
