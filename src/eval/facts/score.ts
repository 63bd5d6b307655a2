import type { ExtractedItems } from "../../providers/extraction.js";
import type { ExtractionRequest, KnownFact } from "../../providers/types.js";
import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";
import type { FactCase } from "./cases.js";

export interface FactScore {
  /** Facts written that the case expects (right key, right words) and retractions it asks for. */
  correct: number;
  /** Facts written that the case does not expect. */
  wrong: number;
  /** Expected facts and retractions not written. */
  missed: number;
  /** Wrong facts that replaced or retracted a value the user's memory held: the worst outcome. */
  wrongSupersedes: number;
  precision: number;
  recall: number;
  /** One line per wrong or missed fact, for reading the failures. */
  failures: string[];
}

type Extract = (request: ExtractionRequest) => ExtractedItems;

/**
 * Runs each case's sessions through `extract` in order, each seeing the facts the earlier ones left
 * (as reflection does), and applies the facts as consolidation would: one current value per
 * attribute (`canonicalAttribute`), a retraction removes it.
 */
export function scoreFactCases(cases: readonly FactCase[], extract: Extract): FactScore {
  const score: FactScore = { correct: 0, wrong: 0, missed: 0, wrongSupersedes: 0, precision: 0, recall: 0, failures: [] };
  for (const factCase of cases) {
    const memory = new Map<string, KnownFact>();
    for (const session of factCase.sessions) {
      const expected = new Map(Object.entries(session.expect ?? {}).map(([key, words]) => [canonicalAttribute(key), words]));
      const retracted = new Set((session.retract ?? []).map(canonicalAttribute));
      const { facts } = extract({ turns: [{ role: "user", content: session.say, seq: 1 }], knownFacts: [...memory.values()] });
      for (const fact of facts) {
        const attribute = canonicalAttribute(fact.key);
        const held = memory.get(attribute);
        const words = expected.get(attribute);
        const right =
          fact.operation === "DELETE"
            ? retracted.delete(attribute)
            : words !== undefined && fact.content.toLowerCase().includes(words.toLowerCase());
        if (right) {
          score.correct += 1;
          expected.delete(attribute);
        } else if (!(held && held.content === fact.content)) {
          // Restating what memory already holds changes nothing; anything else is a wrong fact.
          score.wrong += 1;
          if (held) score.wrongSupersedes += 1;
          score.failures.push(`wrong${held ? " (supersedes)" : ""}: "${session.say}" → ${fact.operation} ${fact.key}: ${fact.content}`);
        }
        if (fact.operation === "DELETE") memory.delete(attribute);
        else memory.set(attribute, { key: fact.key, value: fact.value, content: fact.content });
      }
      for (const [key, words] of expected) score.failures.push(`missed: "${session.say}" → ${key} (${words})`);
      for (const key of retracted) score.failures.push(`missed: "${session.say}" → DELETE ${key}`);
      score.missed += expected.size + retracted.size;
    }
  }
  score.precision = score.correct / Math.max(1, score.correct + score.wrong);
  score.recall = score.correct / Math.max(1, score.correct + score.missed);
  return score;
}
