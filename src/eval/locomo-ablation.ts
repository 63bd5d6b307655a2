import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRuntime } from "../../functions/node-runtime.js";
import { ManualClock } from "../util/clock.js";
import type { AblationScores } from "./ablation.js";
import { importConversations } from "./locomo-cv.js";
import { evaluateLocomo, evaluationEnv } from "./locomo-run.js";

/**
 * Evidence recall of LoCoMo's questions under each value of one setting, in one run: every
 * conversation is imported once into an embedded database on disk (with the setting at its first
 * value), then a service restarted on that data with each value answers every question, so the
 * values are compared on the same memory, question by question.
 *
 * @example
 * const scores = await ablateLocomo({ dir, files: ["26.json", "30.json"], budgets: [2000], setting: "RECALL_GRAPH", values: ["0", "1"] });
 */
export async function ablateLocomo(options: {
  dir: string;
  files: string[];
  budgets: number[];
  setting: string;
  values: string[];
}): Promise<AblationScores> {
  const dataDir = await mkdtemp(join(tmpdir(), "locomo-ablation-"));
  const clock = new ManualClock(new Date("2023-01-01T00:00:00Z"));
  try {
    const imports = await importConversations(options, dataDir, clock);
    const scores: AblationScores = {};
    for (const value of options.values) {
      const runtime = await startRuntime(evaluationEnv(dataDir, { [options.setting]: value }), { clock });
      try {
        scores[value] = {};
        for (const { file, conversation, imported } of imports) {
          clock.set(new Date(imported.lastSessionAt.getTime() + 86_400_000));
          const recalls = await evaluateLocomo(runtime, conversation, imported, options.budgets);
          scores[value][file] = recalls.map((question) => ({ category: String(question.category), recall: question.ours }));
        }
      } finally {
        await runtime.close();
      }
    }
    return scores;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
