import { describe, expect, it } from "vitest";
import { matchesLabel, parseLabelledFile } from "../../src/eval/facts/labelled-set.js";
import { type Extract, replayLabelled, summarise } from "../../src/eval/facts/replay-labelled.js";
import { partOf } from "../../src/eval/facts/split.js";
import type { ResolvedStream } from "../../src/eval/facts/stream-turns.js";
import { kindOfKey } from "../../src/eval/facts/taxonomy.js";
import type { ExtractedFact } from "../../src/providers/extraction.js";

const FILE = `# a comment
@source fresh test
@stream rhubarb
> I love rhubarb crumble.
  tastes "rhubarb" #taste
> I don't eat rhubarb crumble anymore.
  habits "rhubarb" "no longer|not" ; closes #taste
> My cat Pilchard is grey.
  pets "Pilchard" "cat"
`;

const streamsOf = (text: string): ResolvedStream[] =>
  parseLabelledFile(text, "test.txt").streams.map((stream) => ({
    ...stream,
    turns: stream.turns.map((turn) => ({ id: turn.id, text: turn.text ?? "", labels: turn })),
  }));

const fact = (key: string, content: string, operation: "ADD" | "DELETE" = "ADD"): ExtractedFact => ({
  type: "preference",
  key,
  value: content,
  content,
  confidence: 0.9,
  operation,
  source_seqs: [1],
});

/** An extractor that answers each message from a table. */
const scripted =
  (answers: Record<string, ExtractedFact[]>): Extract =>
  (request) => ({ facts: answers[request.turns[0]?.content ?? ""] ?? [], insights: [], traits: [], entities: [], relations: [] });

describe("labelled fact sets", () => {
  it("reads streams, inline turns, labels with word groups, ids and closures", () => {
    const [stream] = parseLabelledFile(FILE, "test.txt").streams;
    expect(stream?.turns.map((turn) => turn.id)).toEqual(["rhubarb#1", "rhubarb#2", "rhubarb#3"]);
    expect(stream?.turns[1]?.facts[0]).toMatchObject({ kinds: ["habits"], groups: [["rhubarb"], ["no longer", "not"]] });
    expect(stream?.turns[1]?.closes).toEqual(["taste"]);
    expect(() => parseLabelledFile('@source fresh x\n@stream a\n> hi\n  flavours "x"', "bad.txt")).toThrow(/bad.txt:4: unknown kind/);
    expect(() => parseLabelledFile("@source fresh x\n@stream a\n> hi\n  tastes rhubarb", "bad.txt")).toThrow(/cannot read/);
  });

  it("matches a content that holds one word of every group", () => {
    const label = { id: "x", kinds: ["habits" as const], groups: [["rhubarb"], ["no longer", "not"]] };
    expect(matchesLabel("User no longer eats Rhubarb.", label)).toBe(true);
    expect(matchesLabel("User eats rhubarb.", label)).toBe(false);
  });

  it("splits by a fixed hash, about 40% held out", () => {
    const units = Array.from({ length: 2000 }, (_, index) => `fresh/case-${index}`);
    const heldOut = units.filter((unit) => partOf(unit) === "held-out").length;
    expect(heldOut / units.length).toBeGreaterThan(0.36);
    expect(heldOut / units.length).toBeLessThan(0.44);
    // Fixed forever: these units fell where they fall when the split was made, on every machine; the
    // last two sit either side of the 40% line (buckets 39 and 40), so moving the line moves one of them.
    expect(["fresh/test-a", "fresh/test-b", "fresh/test-c", "fresh/test-d", "fresh/test-57", "fresh/test-33"].map(partOf)).toEqual([
      "tuning",
      "tuning",
      "held-out",
      "held-out",
      "held-out",
      "tuning",
    ]);
  });

  it("counts a closed fact left current as a false current fact, and a closure done as closed", async () => {
    const streams = streamsOf(FILE);
    const part = partOf("fresh/rhubarb");
    const leaves = await replayLabelled(
      streams,
      scripted({
        "I love rhubarb crumble.": [fact("attitude:rhubarb", "User loves rhubarb.")],
        "I don't eat rhubarb crumble anymore.": [fact("consumes:rhubarb", "User no longer eats rhubarb.")],
      }),
      () => [],
    );
    expect(leaves[part].closures).toBe(1);
    expect(leaves[part].closed).toBe(0);
    expect(summarise(leaves[part]).falseCurrent).toBe(1);
    expect(summarise(leaves[part]).recall).toBeCloseTo(2 / 3);

    const closes = await replayLabelled(
      streams,
      scripted({
        "I love rhubarb crumble.": [fact("attitude:rhubarb", "User loves rhubarb.")],
        "I don't eat rhubarb crumble anymore.": [fact("consumes:rhubarb", "User no longer eats rhubarb.")],
        "My cat Pilchard is grey.": [fact("pet:cat:pilchard", "User's cat is named Pilchard.")],
      }),
      (written, current) =>
        written.key === "consumes:rhubarb"
          ? current.filter((held) => held.key === "attitude:rhubarb").map((held) => ({ key: held.key, reason: "same object" }))
          : [],
    );
    expect(closes[part].closed).toBe(1);
    expect(summarise(closes[part])).toMatchObject({ precision: 1, recall: 1, falseCurrent: 0 });
  });

  it("counts a fact no label records as wrong, and a true fact it replaces as lost", async () => {
    const streams = streamsOf('@source fresh test\n@stream home\n> I live in Kotor.\n  home "Kotor"\n> I live for the weekend.\n');
    const scores = await replayLabelled(
      streams,
      scripted({
        "I live in Kotor.": [fact("profile:location", "User lives in Kotor.")],
        "I live for the weekend.": [fact("profile:city", "User lives in the weekend.")],
      }),
      () => [],
    );
    const score = scores[partOf("fresh/home")];
    expect(score.lostTrue).toBe(1);
    expect(summarise(score)).toMatchObject({ precision: 0.5, falseCurrent: 1 });
  });

  it("knows the kind of a fact by its key", () => {
    expect(kindOfKey("profile:location")).toBe("home");
    expect(kindOfKey("family:mother:birthday")).toBe("dates");
    expect(kindOfKey("pet:dog:rex")).toBe("pets");
    expect(kindOfKey("consumes:coffee")).toBe("habits");
  });
});
