import { readLabelledFile } from "../src/eval/facts/labelled-set.js";
import { createUseEmbedder } from "../src/providers/offline/use-embedder.js";
import { scriptArgs } from "./script-args.js";

/**
 * `npx tsx scripts/probe-closure-similarity.ts FILE…`: can the offline embedder (USE-lite) tell
 * which earlier fact a later message ends? Every message of a stream is paired with every labelled
 * fact stated before it in that stream (a pair is a closure when the message's label closes the
 * fact), each scored by the cosine of the two messages. Prints the AUC, the precision at recall
 * 0.5, and the recall with no wrong closure — alone and with an end cue ("no longer", "quit", …)
 * required. An experiment for docs/evaluation.md, not part of the service.
 */
const { positionals: files } = scriptArgs("npx tsx scripts/probe-closure-similarity.ts FILE…", { allowPositionals: true });
if (files.length === 0) throw new Error("usage: probe-closure-similarity.ts FILE…");

const END_CUE =
  /\b(?:no longer|not|n't|any ?more|stopped|quit|gave up|left|sold|lost|died|passed|broke up|split|over|done|former|used to|these days|now|moved|retired|gone|for good|actually|sorry|meant)\b/i;

interface Pair {
  message: string;
  source: string;
  closes: boolean;
}
const pairs: Pair[] = [];
for (const file of files) {
  for (const stream of (await readLabelledFile(file)).streams) {
    const stated: { id: string; source: string }[] = [];
    for (const turn of stream.turns) {
      if (!turn.text) continue;
      for (const earlier of stated) pairs.push({ message: turn.text, source: earlier.source, closes: turn.closes.includes(earlier.id) });
      for (const label of turn.facts) stated.push({ id: label.id, source: turn.text });
    }
  }
}

const embedder = createUseEmbedder({ workers: 1 });
const texts = [...new Set(pairs.flatMap((pair) => [pair.message, pair.source]))];
const vectors = new Map((await embedder.embed(texts, { priority: "background" })).map((vector, index) => [texts[index] as string, vector]));
const cosine = (a: number[], b: number[]) => {
  const dot = (x: number[], y: number[]) => x.reduce((sum, value, index) => sum + value * (y[index] as number), 0);
  return dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));
};
const scored = pairs.map((pair) => ({
  closes: pair.closes,
  cue: END_CUE.test(pair.message),
  score: cosine(vectors.get(pair.message) as number[], vectors.get(pair.source) as number[]),
}));

/** Precision and recall of "closes when the score is at least t" at each t, highest first; recall over every closure. */
function sweep(candidates: typeof scored): { precision: number; recall: number; wrong: number }[] {
  const closures = scored.filter((pair) => pair.closes).length;
  const ranked = [...candidates].sort((a, b) => b.score - a.score);
  let right = 0;
  return ranked.map((pair, index) => {
    if (pair.closes) right += 1;
    return { precision: right / (index + 1), recall: right / closures, wrong: index + 1 - right };
  });
}
function auc(candidates: typeof scored): number {
  const positive = candidates.filter((pair) => pair.closes);
  const negative = candidates.filter((pair) => !pair.closes);
  let wins = 0;
  for (const p of positive) for (const n of negative) wins += p.score > n.score ? 1 : p.score === n.score ? 0.5 : 0;
  return wins / (positive.length * negative.length);
}

const closures = scored.filter((pair) => pair.closes).length;
console.log(`${pairs.length} pairs, ${closures} closures (${files.length} files)`);
for (const [name, candidates] of [
  ["similarity alone", scored],
  ["similarity with an end cue", scored.filter((pair) => pair.cue)],
] as const) {
  const points = sweep(candidates);
  const half = points.find((point) => point.recall >= 0.5);
  const clean = points.filter((point) => point.wrong === 0).at(-1);
  console.log(
    `${name}: AUC ${auc(candidates).toFixed(2)}; precision at recall 0.5 ${half ? half.precision.toFixed(2) : "not reached"}; ` +
      `recall with no wrong closure ${(clean?.recall ?? 0).toFixed(2)}`,
  );
}
process.exit(0);
