import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { startRuntime } from "../../functions/node-runtime.js";
import { ManualClock } from "../util/clock.js";
import { evaluationEnv } from "./evaluation-env.js";
import { type LocomoConversation, loadLocomo } from "./locomo.js";
import { evaluateLocomo, importLocomo, type LocomoImport, mean } from "./locomo-run.js";

export interface CrossValidation {
  /** Mean evidence recall by grid value, conversation and budget. */
  grid: Record<number, Record<string, Record<number, number>>>;
  /** One fold per ordered pair: the value chosen on `tunedOn`, and recall on `reportedOn` with it. */
  folds: { tunedOn: string; reportedOn: string; chosen: number; recall: Record<number, number> }[];
}

/**
 * The value of `grid` with the best mean recall over all budgets on `conversation` (ties: the
 * smaller value, the cheaper window assembly).
 */
export function chooseOnOne(results: CrossValidation["grid"], conversation: string, budgets: number[]): number {
  const score = (value: number) => mean(budgets.map((budget) => results[value]?.[conversation]?.[budget] ?? Number.NaN));
  return Object.keys(results)
    .map(Number)
    .sort((a, b) => a - b)
    .reduce((best, value) => (score(value) > score(best) ? value : best));
}

/** A conversation of the set, imported: its file, its questions, and what the import returned. */
export interface ImportedConversation {
  file: string;
  conversation: LocomoConversation;
  imported: LocomoImport;
}

/**
 * Imports each conversation of `files` once into the embedded database in `dataDir` (a service
 * started on it for the import, then closed), so that several services can be evaluated on it.
 */
export async function importConversations(
  options: { dir: string; files: string[] },
  dataDir: string,
  clock: ManualClock,
  env: Record<string, string> = {},
): Promise<ImportedConversation[]> {
  const importer = await startRuntime(evaluationEnv(dataDir, env), { clock });
  const imports: ImportedConversation[] = [];
  try {
    for (const file of options.files) {
      const conversation = await loadLocomo(join(options.dir, file));
      imports.push({
        file,
        conversation,
        imported: await importLocomo(importer, clock, conversation, `locomo-${basename(file, ".json")}`),
      });
    }
  } finally {
    await importer.close();
  }
  return imports;
}

/** The retrieval settings chosen on LoCoMo dev, each by this cross-validation. */
export const TUNED_SETTINGS = ["CONTEXT_FOLLOWING_TURNS", "RECALL_MIN_TEXT_COVERAGE", "CONTEXT_NEIGHBOUR_WEIGHT"] as const;
export type TunedSetting = (typeof TUNED_SETTINGS)[number];

/**
 * Cross-validates one of the retrieval settings chosen on LoCoMo dev: each conversation is
 * imported once into an embedded database on disk, every grid value is evaluated by a service
 * restarted on it with that setting (the others at their defaults), and each fold picks the value
 * on one conversation and reports recall on another — so the reported figures never saw their own answers.
 */
export async function crossValidateLocomo(options: {
  dir: string;
  files: string[];
  budgets: number[];
  setting: TunedSetting;
  grid: number[];
}): Promise<CrossValidation> {
  const dataDir = await mkdtemp(join(tmpdir(), "locomo-cv-"));
  const clock = new ManualClock(new Date("2023-01-01T00:00:00Z"));
  try {
    const imports = await importConversations(options, dataDir, clock);

    const grid: CrossValidation["grid"] = {};
    for (const value of options.grid) {
      const runtime = await startRuntime(evaluationEnv(dataDir, { [options.setting]: String(value) }), { clock });
      try {
        grid[value] = {};
        for (const { file, conversation, imported } of imports) {
          clock.set(new Date(imported.lastSessionAt.getTime() + 86_400_000));
          const recalls = await evaluateLocomo(runtime, conversation, imported, options.budgets);
          grid[value][file] = Object.fromEntries(
            options.budgets.map((budget) => [budget, mean(recalls.map((q) => q.ours[budget] as number))]),
          );
        }
      } finally {
        await runtime.close();
      }
    }

    const folds = options.files.flatMap((tunedOn) => {
      const chosen = chooseOnOne(grid, tunedOn, options.budgets);
      return options.files
        .filter((reportedOn) => reportedOn !== tunedOn)
        .map((reportedOn) => ({ tunedOn, reportedOn, chosen, recall: grid[chosen]?.[reportedOn] ?? {} }));
    });
    return { grid, folds };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
