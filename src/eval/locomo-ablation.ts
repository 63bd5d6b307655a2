import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRuntime } from "../../functions/node-runtime.js";
import { ManualClock } from "../util/clock.js";
import type { AblationScores } from "./ablation.js";
import { ablationEnv } from "./ablation-settings.js";
import { evaluationEnv, evaluationModels } from "./evaluation-env.js";
import { copyKeptData, type KeptHistory, keptDataDir, readKeptImport, writeKeptImport } from "./kept-import.js";
import { loadLocomo } from "./locomo.js";
import { importConversations } from "./locomo-cv.js";
import { diasOfEvents, evaluateLocomo, locomoTurns } from "./locomo-run.js";

/**
 * Evidence recall of LoCoMo's questions under each value of one setting, in one run: every
 * conversation is imported once into an embedded database on disk (default settings; kept in
 * `importDir` and answered again from there when given), then a service started on a copy of that
 * data with each value answers every question, so the values are compared on the same memory,
 * question by question.
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
  /** Where the imported database is kept and, when it holds these conversations, answered again without importing. */
  importDir?: string;
}): Promise<AblationScores> {
  const root = await mkdtemp(join(tmpdir(), "locomo-ablation-"));
  const importDir = options.importDir ?? join(root, "imported");
  const clock = new ManualClock(new Date("2023-01-01T00:00:00Z"));
  try {
    // Every value's settings checked before the import.
    const settings = options.values.map((value) => ablationEnv(options.setting, value));
    const { embedder } = await evaluationModels(evaluationEnv(keptDataDir(importDir)));
    const kept = await readKeptImport(importDir, embedder);
    const missing = options.files.filter((file) => !kept.has(file));
    if (missing.length > 0) {
      // Said before the service first starts on the directory, so that an interrupted import still names its embedder.
      await writeKeptImport(importDir, embedder, kept.values());
      for (const { file, imported } of await importConversations({ dir: options.dir, files: missing }, keptDataDir(importDir), clock))
        kept.set(file, { id: file, userId: imported.userId, lastTurnAt: imported.lastSessionAt });
      await writeKeptImport(importDir, embedder, kept.values());
    }
    const conversations = await Promise.all(
      options.files.map(async (file) => ({ file, conversation: await loadLocomo(join(options.dir, file)) })),
    );
    const scores: AblationScores = {};
    for (const [valueIndex, value] of options.values.entries()) {
      // A copy per value: answering records access, which ranking reads.
      const copy = join(root, `value-${valueIndex}`);
      await copyKeptData(importDir, copy);
      const runtime = await startRuntime(evaluationEnv(copy, settings[valueIndex]), { clock });
      try {
        scores[value] = {};
        for (const { file, conversation } of conversations) {
          const history = kept.get(file) as KeptHistory;
          const imported = {
            userId: history.userId,
            turns: locomoTurns(conversation),
            diaByEvent: await diasOfEvents(runtime, history.userId),
            lastSessionAt: history.lastTurnAt,
          };
          clock.set(new Date(imported.lastSessionAt.getTime() + 86_400_000));
          const recalls = await evaluateLocomo(runtime, conversation, imported, options.budgets);
          scores[value][file] = recalls.map((question) => ({ category: String(question.category), recall: question.ours }));
        }
      } finally {
        await runtime.close();
      }
      await rm(copy, { recursive: true, force: true });
    }
    return scores;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
