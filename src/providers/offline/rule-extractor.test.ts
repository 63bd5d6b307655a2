import { describe, expect, it } from "vitest";
import type { KnownFact } from "../types.js";
import { extractByRules } from "./rule-extractor.js";

/**
 * The offline reader over whole messages and turns, in sentences written for this test; each
 * grammatical form is tested in test/unit/offline-reader.test.ts. The fact sets are scored by
 * `npm run eval:facts` only, never here.
 */
const facts = (turns: string[], knownFacts: KnownFact[] = []) =>
  extractByRules({ turns: turns.map((content, index) => ({ role: "user", content, seq: index + 1 })), knownFacts }).facts.map(
    (fact) => `${fact.source_seqs.join(",")} ${fact.operation} ${fact.key}: ${fact.content}`,
  );

describe("the offline reader over messages", () => {
  it("a later turn of the batch reads what an earlier one said: an ending, a new value, the same value", () => {
    expect(facts(["I live in Hobart.", "We moved to Launceston.", "I live in Launceston.", "I no longer live in Launceston."])).toEqual([
      "1 ADD profile:location: User lives in Hobart.",
      "2 UPDATE profile:location: User lives in Launceston.",
      "3 NOOP profile:location: User lives in Launceston.",
      "4 DELETE profile:location: User no longer lives in Launceston.",
    ]);
  });

  it("one statement per key in a message: a new value wins over an ending said beside it", () => {
    const held: KnownFact[] = [{ key: "profile:employer", value: "Brakstad", content: "User works at Brakstad." }];
    expect(facts(["I left Brakstad and I work at Orla Foods now."], held)).toEqual([
      "1 UPDATE profile:employer: User works at Orla Foods.",
    ]);
    expect(facts(["I left Brakstad."], held)).toEqual(["1 DELETE profile:employer: User left Brakstad."]);
  });

  it("someone the message says died is not written as one of the user's people", () => {
    expect(facts(["Our old dog Biscotti died in the spring."])).toEqual([]);
    expect(facts(["Our dog Biscotti snores."])).toEqual(["1 ADD pet:dog:biscotti: User's dog is named Biscotti."]);
  });

  it("reads only the user's turns, and no pasted transcript", () => {
    const extraction = extractByRules({
      turns: [
        { role: "assistant", content: "I live in the cloud, strictly speaking.", seq: 1 },
        { role: "user", content: "Transcript of the call. Ana: I live in Faro. Rui: I live in Braga. Ana: ok. Rui: bye.", seq: 2 },
      ],
    });
    expect(extraction.facts).toEqual([]);
  });

  it("every fact's sentence is one of the reader's own, never the message pasted in", () => {
    const said = "Honestly my week was long, but I love long-distance trail running and I speak Basque.";
    const written = facts([said]);
    expect(written).toEqual([
      "1 ADD attitude:long-distance_trail_running: User loves long-distance trail running.",
      "1 ADD language:basque: User speaks Basque.",
    ]);
    for (const line of written) expect(line).not.toContain("week");
  });
});
