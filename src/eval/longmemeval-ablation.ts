import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRuntime } from "../../functions/node-runtime.js";
import { ManualClock } from "../util/clock.js";
import { ablationEnv } from "./ablation-settings.js";
import { evaluationEnv, evaluationModels } from "./evaluation-env.js";
import { copyKeptData, type KeptHistory, keptDataDir, readKeptImport, writeKeptImport } from "./kept-import.js";
import type { LongMemEvalQuestion } from "./longmemeval.js";
import { evaluateQuestion, type HaystackImport, importHaystack, type QuestionRecall, turnsOfEvents } from "./longmemeval-run.js";

export interface LongMemEvalRun {
  /** Each question's recall under each value of the setting ("default" without one), in the questions' order. */
  results: Record<string, QuestionRecall[]>;
  importMs: number;
  /** Wall time of answering every question, by value. */
  answerMs: Record<string, number>;
}

/**
 * Evidence recall of LongMemEval questions under each value of one setting, in one run: every
 * question's haystack is imported once, as its own user, into an embedded database on disk (default
 * settings); then, for each value, a copy of that database is answered by a service started on it
 * with the value. A copy per value, because answering records access (which ranking reads): the
 * second value must not see what the first one's windows used.
 *
 * @example
 * const run = await ablateLongMemEval({ questions, budgets: [1000, 2000], setting: "RECALL_GRAPH", values: ["0", "1"] });
 */
export async function ablateLongMemEval(options: {
  questions: readonly LongMemEvalQuestion[];
  budgets: readonly number[];
  setting?: string;
  values: readonly string[];
  /**
   * Where the imported database is kept: reused when it holds these questions (a read-path change
   * is measured again in minutes), else imported into and kept. Without it, a temporary directory.
   */
  importDir?: string;
  log?: (line: string) => void;
}): Promise<LongMemEvalRun> {
  const log = options.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), "longmemeval-eval-"));
  const imported = options.importDir ?? join(root, "imported");
  const clock = new ManualClock(new Date("2023-01-01T00:00:00Z"));
  try {
    const started = Date.now();
    // Every value's settings checked before the import, which may take hours.
    const settings = options.values.map((value) => ablationEnv(options.setting, value));
    const { embedder } = await evaluationModels(evaluationEnv(keptDataDir(imported)));
    const kept = options.importDir ? await readKeptImport(imported, embedder) : new Map<string, KeptHistory>();
    const missing = options.questions.filter((question) => !kept.has(question.id));
    if (kept.size > 0)
      log(`reusing the import in ${imported}: ${options.questions.length - missing.length} of ${options.questions.length} questions`);
    if (missing.length > 0) {
      // Every session posted at its date, the memory derived after: stamped at each session's end.
      // Said before the service first starts on the directory, so that an interrupted import still names its embedder.
      if (options.importDir) await writeKeptImport(imported, embedder, kept.values());
      const importer = await startRuntime(evaluationEnv(keptDataDir(imported)), { clock, deriveAtSessionEnd: true });
      try {
        for (const [index, question] of missing.entries()) {
          const at = Date.now();
          const history = await importHaystack(importer, clock, question, `lme-${question.id}`);
          kept.set(question.id, { id: question.id, userId: history.userId, lastTurnAt: history.lastTurnAt });
          if (options.importDir) await writeKeptImport(imported, embedder, kept.values());
          const turns = question.sessions.reduce((sum, session) => sum + session.turns.length, 0);
          log(
            `[${index + 1}/${missing.length}] ${question.id} ${question.type}: ${question.sessions.length} sessions, ${turns} turns imported in ${((Date.now() - at) / 1000).toFixed(0)} s`,
          );
        }
      } finally {
        await importer.close();
      }
    }
    // Event ids are read back from the copy answered on (`turnsOfEvents`).
    const imports: HaystackImport[] = options.questions.map((question) => ({
      ...(kept.get(question.id) as KeptHistory),
      turnByEvent: new Map(),
    }));
    const importMs = Date.now() - started;

    const results: Record<string, QuestionRecall[]> = {};
    const answerMs: Record<string, number> = {};
    for (const [valueIndex, value] of options.values.entries()) {
      const copy = join(root, `value-${valueIndex}`);
      await copyKeptData(imported, copy);
      const at = Date.now();
      const runtime = await startRuntime(evaluationEnv(copy, settings[valueIndex]), { clock });
      try {
        results[value] = [];
        for (const [index, question] of options.questions.entries()) {
          const imported = imports[index] as HaystackImport;
          imported.turnByEvent = await turnsOfEvents(runtime, imported.userId);
          results[value].push(await evaluateQuestion(runtime, clock, question, imported, options.budgets));
        }
      } finally {
        await runtime.close();
      }
      answerMs[value] = Date.now() - at;
      log(
        `${options.setting ?? "default settings"}${options.setting ? `=${value}` : ""}: answered in ${(answerMs[value] / 1000).toFixed(0)} s`,
      );
      await rm(copy, { recursive: true, force: true });
    }
    return { results, importMs, answerMs };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
