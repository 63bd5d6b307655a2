import { FACT_CASES, type FactCase } from "../src/eval/facts/cases.js";
import { HELD_OUT_FACT_CASES } from "../src/eval/facts/held-out-cases.js";
import { scoreFactCases } from "../src/eval/facts/score.js";
import { extractByRules } from "../src/providers/offline/rule-extractor.js";

/**
 * `npm run eval:facts`: precision and recall of the offline fact extractor on its evaluation set
 * (src/eval/facts/cases.ts) and on the held-out set written after it, the wrong facts that
 * replaced a true one, and every failure. Exits non-zero below the targets (precision ≥ 0.95,
 * recall ≥ 0.7, no wrong supersede) on either set.
 */
function report(label: string, cases: readonly FactCase[]): boolean {
  const messages = cases.reduce((count, factCase) => count + factCase.sessions.length, 0);
  const score = scoreFactCases(cases, extractByRules);
  console.log(`${label}: ${cases.length} cases, ${messages} messages`);
  for (const failure of score.failures) console.log(`  ${failure}`);
  console.log(`  precision ${score.precision.toFixed(3)} (${score.correct} right, ${score.wrong} wrong)`);
  console.log(`  recall    ${score.recall.toFixed(3)} (${score.missed} missed)`);
  console.log(`  wrong supersedes ${score.wrongSupersedes}`);
  return score.precision >= 0.95 && score.recall >= 0.7 && score.wrongSupersedes === 0;
}

const passed = [report("evaluation set", FACT_CASES), report("held-out set", HELD_OUT_FACT_CASES)];
if (passed.includes(false)) process.exitCode = 1;
