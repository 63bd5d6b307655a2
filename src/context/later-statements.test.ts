import { describe, expect, it } from "vitest";
import { recalledTurn } from "../../test/fixtures/recalled-memory.js";
import type { RecalledMemory } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement } from "../memory/recall/later-statements.js";
import { PLAIN_READING, saysSomethingOfSpeaker } from "../memory/recall/speaker-statements.js";
import { besideLaterStatements, packBesideLaterStatements, statementsToLookPast } from "./later-statements.js";
import type { PackResult } from "./pack.js";

/** No own statements read first: a window not asked how the asker stands now. */
const NONE: ReadonlySet<string> = new Set();

/** Each statement with its note, as "statement<-note". */
const pairs = (laterOf: ReadonlyMap<string, LaterStatement>) => [...laterOf].map(([id, statement]) => `${id}<-${statement.memoryId}`);

const later = (memoryId: string, at = 0): LaterStatement => ({
  memoryId,
  content: memoryId,
  at: new Date(at),
  similarity: 0.6,
  names: [],
  sources: [],
});

describe("statements and what the user said after them", () => {
  it("looks past facts and the user's first-person turns, never a question or the assistant's words", () => {
    const recalled = [
      recalledTurn("question", { content: "user: Which paint is best for a bathroom ceiling?" }),
      recalledTurn("reply", { role: "assistant", content: "assistant: I would use a mould-resistant emulsion." }),
      recalledTurn("statement", { content: "user: We painted the hallway sage green. Does that go with oak?" }),
      recalledTurn("fact", {
        type: "semantic",
        subtype: "profile",
        role: null,
        content: "User lives in Derby.",
        lastConfirmedAt: new Date(5),
      }),
    ];
    // Facts first, however far down they rank: the window packs them in a section of their own.
    expect(statementsToLookPast(recalled, 5, PLAIN_READING)).toEqual([
      { id: "fact", after: new Date(5) },
      { id: "statement", after: new Date(0) },
    ]);
    // As many as the share pays for, facts taking their places first.
    expect(statementsToLookPast(recalled, 1, PLAIN_READING).map((anchor) => anchor.id)).toEqual(["fact"]);
    expect(statementsToLookPast(recalled, 2, PLAIN_READING).map((anchor) => anchor.id)).toEqual(["fact", "statement"]);
    expect(saysSomethingOfSpeaker("Is it too late to plant garlic?")).toBe(false);
    expect(saysSomethingOfSpeaker("My garlic is sprouting already!")).toBe(true);
  });

  it("looks past a plain statement of a thing of the user's life when it is one of the asker's own statements", () => {
    const recalled = [
      recalledTurn("asked", { content: "user: Can you suggest a varnish for an oak floor?" }),
      recalledTurn("plain", { content: "user: The back fence blew down in the storm on Tuesday." }),
      recalledTurn("told", { role: "assistant", content: "assistant: The fence panels are sold at the timber yard." }),
    ];
    expect(statementsToLookPast(recalled, 3, PLAIN_READING, new Set(["plain"])).map((anchor) => anchor.id)).toEqual(["plain"]);
    // Ranked, not read first as the asker's own: a plain statement of anyone's, as a conversation between two people is full of.
    expect(statementsToLookPast(recalled, 3, PLAIN_READING)).toEqual([]);
  });

  it("looks past every one of the asker's own statements, beyond the facts that take the places the share pays for", () => {
    const fact = (id: string) => recalledTurn(id, { type: "semantic", subtype: "profile", role: null, content: `User owns ${id}.` });
    const recalled = [
      recalledTurn("own", { content: "user: The allotment shed got a new felt roof last week." }),
      recalledTurn("ranked", { content: "user: I keep my seed potatoes in the garage over winter." }),
      fact("a kayak"),
      fact("a tandem"),
    ];
    expect(statementsToLookPast(recalled, 2, PLAIN_READING, new Set(["own"])).map((anchor) => anchor.id)).toEqual([
      "a kayak",
      "a tandem",
      "own",
    ]);
    // A turn the ranking brings is looked past only as far as the share goes.
    expect(statementsToLookPast(recalled, 3, PLAIN_READING, new Set(["own"])).map((anchor) => anchor.id)).toEqual([
      "a kayak",
      "a tandem",
      "own",
    ]);
    expect(statementsToLookPast(recalled, 4, PLAIN_READING, new Set(["own"])).map((anchor) => anchor.id)).toEqual([
      "a kayak",
      "a tandem",
      "own",
      "ranked",
    ]);
  });

  it("shows a later statement beside its statement once, and drops its own place further down", () => {
    const recalled = ["a", "b", "c", "d"].map((id) => recalledTurn(id));
    const { candidates, laterOf } = besideLaterStatements(
      recalled,
      new Map([
        ["a", [later("c")]],
        ["b", [later("c")]],
      ]),
      NONE,
    );
    expect(candidates.map((memory) => memory.id)).toEqual(["a", "b", "d"]);
    expect(pairs(laterOf)).toEqual(["a<-c"]);
  });

  it("keeps a later statement recall ranked ahead of its statement where it is, without a note", () => {
    const recalled = ["newer", "older"].map((id) => recalledTurn(id));
    const { candidates, laterOf } = besideLaterStatements(recalled, new Map([["older", [later("newer")]]]), NONE);
    expect(candidates.map((memory) => memory.id)).toEqual(["newer", "older"]);
    expect(laterOf.size).toBe(0);
  });

  it("leaves an own statement read first out of another's note when it has a later statement of its own", () => {
    // "first" would show "second" as its note, and so hide the note "second" has: "third".
    const recalled = ["first", "second", "rest"].map((id) => recalledTurn(id));
    const notes = new Map([
      ["first", [later("second")]],
      ["second", [later("third")]],
    ]);
    const readFirst = besideLaterStatements(recalled, notes, new Set(["first", "second"]));
    expect(readFirst.candidates.map((memory) => memory.id)).toEqual(["first", "second", "rest"]);
    expect(pairs(readFirst.laterOf)).toEqual(["second<-third"]);
    // Ranked, not read first, it is still the note: it may rank past what the budget shows.
    const ranked = besideLaterStatements(recalled, notes, NONE);
    expect(ranked.candidates.map((memory) => memory.id)).toEqual(["first", "rest"]);
    expect(pairs(ranked.laterOf)).toEqual(["first<-second", "second<-third"]);
    // With no later statement of its own, it is the note of the statement before it.
    const alone = besideLaterStatements(recalled, new Map([["first", [later("second")]]]), new Set(["first", "second"]));
    expect(pairs(alone.laterOf)).toEqual(["first<-second"]);
  });

  it("gives up a note to an own statement only when that one keeps its own: in a chain, and when its note is ranked ahead", () => {
    const own = new Set(["a", "b", "c"]);
    // a, b, c, d said one after another, each the nearest later turn of the one before: c keeps d,
    // so b gives c up; b, its own note gone, stays a's.
    const chain = besideLaterStatements(
      ["a", "b", "c"].map((id) => recalledTurn(id)),
      new Map([
        ["a", [later("b", 1)]],
        ["b", [later("c", 2)]],
        ["c", [later("d", 3)]],
      ]),
      own,
    );
    expect(pairs(chain.laterOf)).toEqual(["a<-b", "c<-d"]);
    expect(chain.candidates.map((memory) => memory.id)).toEqual(["a", "c"]);
    expect([...chain.apart]).toEqual(["c"]);
    // b's note is ranked ahead of b, so b keeps none: a keeps b.
    const ahead = besideLaterStatements(
      ["a", "c", "b"].map((id) => recalledTurn(id)),
      new Map([
        ["a", [later("b", 1)]],
        ["b", [later("c", 2)]],
      ]),
      own,
    );
    expect(pairs(ahead.laterOf)).toEqual(["a<-b"]);
    expect(ahead.apart.size).toBe(0);
  });

  it("shows a fact's later statement beside it even when recall ranked that turn ahead of the fact", () => {
    const recalled = [
      recalledTurn("newer"),
      recalledTurn("fact", { type: "semantic", subtype: "profile", role: null, content: "User keeps bees." }),
    ];
    const { candidates, laterOf } = besideLaterStatements(recalled, new Map([["fact", [later("newer")]]]), NONE);
    expect(candidates.map((memory) => memory.id)).toEqual(["fact"]);
    expect(laterOf.get("fact")?.memoryId).toBe("newer");
  });

  describe("a statement the budget leaves out with its note", () => {
    /** A packing that fits every candidate but those in `tooLong` while they carry a note. */
    const packing = (tooLong: ReadonlySet<string>) => {
      const calls: string[][] = [];
      const pack = (recalled: RecalledMemory[], laterOf: Map<string, LaterStatement>): PackResult => {
        calls.push(recalled.map((memory) => (laterOf.has(memory.id) ? `${memory.id}+${laterOf.get(memory.id)?.memoryId}` : memory.id)));
        const shown = recalled.filter((memory) => !(tooLong.has(memory.id) && laterOf.has(memory.id)));
        const items = shown.map((memory) => ({ text: memory.content, tokens: 1, memory_id: memory.id, sources: [] }));
        return { sections: [{ kind: "memories", tokens: items.length, items }], prompt: "", totalTokens: items.length, repeated: [] };
      };
      return { calls, pack };
    };

    it("gives its later turn back its own ranked place, and is not offered again without the note", () => {
      const recalled = ["first", "other", "change", "rest"].map((id) => recalledTurn(id));
      const { calls, pack } = packing(new Set(["first"]));
      const result = packBesideLaterStatements(recalled, new Map([["first", [later("change")]]]), pack, NONE);
      expect(calls).toEqual([
        ["first+change", "other", "rest"],
        ["other", "change", "rest"],
      ]);
      expect(result.recalled.map((memory) => memory.id)).toEqual(["other", "change", "rest"]);
      expect(result.laterOf.size).toBe(0);
      expect([...result.leftWithNote]).toEqual(["first"]);
    });

    it("makes an own statement kept apart the note it was again when the budget leaves it out with its own", () => {
      const recalled = ["first", "other", "second"].map((id) => recalledTurn(id));
      const { calls, pack } = packing(new Set(["second"]));
      const notes = new Map([
        ["first", [later("second", 1)]],
        ["second", [later("third", 2)]],
      ]);
      const result = packBesideLaterStatements(recalled, notes, pack, new Set(["first", "other", "second"]));
      expect(calls).toEqual([
        ["first", "other", "second+third"],
        ["first+second", "other"],
      ]);
      expect(result.laterOf.get("first")?.memoryId).toBe("second");
      expect(result.leftWithNote.size).toBe(0);
    });

    it("packs once when every statement with a note is shown, or when its later turn was never a candidate", () => {
      const recalled = ["first", "other"].map((id) => recalledTurn(id));
      const shown = packing(new Set());
      packBesideLaterStatements(recalled, new Map([["first", [later("other")]]]), shown.pack, NONE);
      expect(shown.calls).toEqual([["first+other"]]);
      const notCandidate = packing(new Set(["first"]));
      const result = packBesideLaterStatements(recalled, new Map([["first", [later("said-later")]]]), notCandidate.pack, NONE);
      expect(notCandidate.calls).toEqual([["first+said-later", "other"]]);
      expect(result.leftWithNote.size).toBe(0);
    });

    it("moves a later turn down the statements it is nearest to, packing again twice at most", () => {
      // Two statements share one later turn and neither fits with it: it moves down them, then stands alone.
      const twice = packing(new Set(["a", "b"]));
      const two = ["a", "b", "shared", "rest"].map((id) => recalledTurn(id));
      const result = packBesideLaterStatements(two, new Map(["a", "b"].map((id) => [id, [later("shared")]] as const)), twice.pack, NONE);
      expect(twice.calls).toEqual([
        ["a+shared", "b", "rest"],
        ["b+shared", "rest"],
        ["shared", "rest"],
      ]);
      expect([...result.leftWithNote]).toEqual(["a", "b"]);
      // A third statement that does not fit with it either keeps it past the last packing: the cap's price.
      const thrice = packing(new Set(["a", "b", "c"]));
      const three = ["a", "b", "c", "shared"].map((id) => recalledTurn(id));
      packBesideLaterStatements(three, new Map(["a", "b", "c"].map((id) => [id, [later("shared")]] as const)), thrice.pack, NONE);
      expect(thrice.calls).toHaveLength(3);
    });

    it("drops a turn shown as another statement's note that took a note of its own, which is never shown", () => {
      const recalled = ["first", "second", "third", "newest"].map((id) => recalledTurn(id));
      const { calls, pack } = packing(new Set());
      const notes = new Map([
        ["first", [later("second")]],
        ["second", [later("newest")]],
        ["third", [later("newest")]],
      ]);
      const result = packBesideLaterStatements(recalled, notes, pack, NONE);
      expect(calls).toEqual([
        ["first+second", "third"],
        ["first+second", "third+newest"],
      ]);
      // Still shown, beside the first: not reported as left out.
      expect(result.leftWithNote.size).toBe(0);
    });

    it("keeps the packing it had when packing again would leave a shown fact without its note", () => {
      const recalled = [
        recalledTurn("noted"),
        recalledTurn("earlier"),
        recalledTurn("fact", { type: "semantic", subtype: "profile", role: null, content: "User sails a dinghy." }),
        recalledTurn("newest"),
      ];
      const { calls, pack } = packing(new Set());
      const notes = new Map([
        ["noted", [later("newest")]],
        ["earlier", [later("noted")]],
        ["fact", [later("noted")]],
      ]);
      const result = packBesideLaterStatements(recalled, notes, pack, NONE);
      // Dropping "noted" (shown only as the fact's note) would give it to "earlier" and leave the fact bare.
      expect(calls).toEqual([
        ["earlier", "fact+noted"],
        ["earlier+noted", "fact", "newest"],
      ]);
      expect(result.laterOf.get("fact")?.memoryId).toBe("noted");
      expect(result.recalled.map((memory) => memory.id)).toEqual(["earlier", "fact"]);
      expect(result.leftWithNote.size).toBe(0);
    });

    it("does not count a statement the history already holds as left out by the budget", () => {
      const recalled = ["first", "change"].map((id) => recalledTurn(id));
      const calls: number[] = [];
      const pack = (): PackResult => {
        calls.push(calls.length);
        return { sections: [], prompt: "", totalTokens: 0, repeated: ["first"] };
      };
      packBesideLaterStatements(recalled, new Map([["first", [later("change")]]]), pack, NONE);
      expect(calls).toHaveLength(1);
    });
  });
});
