import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { parseCaseSet } from "./changes/case-set.js";
import { FACT_CASES } from "./facts/cases.js";
import { HELD_OUT_FACT_CASES } from "./facts/held-out-cases.js";
import { parseLabelledFile } from "./facts/labelled-set.js";

/** A text some evaluation scores, and where it comes from (for the message that names a match). */
export interface EvaluationText {
  source: string;
  text: string;
}

const FACTS_DIR = fileURLToPath(new URL("./facts/", import.meta.url));
const CHANGES_DIR = fileURLToPath(new URL("./changes/", import.meta.url));

/**
 * Every sentence the project's own sets score: the messages written inline in the labelled and
 * unseen fact sets (src/eval/facts/labelled/, unseen/) and the older case sets (cases.ts,
 * held-out-cases.ts). The LoCoMo and LongMemEval sets name turns of the shared data, which
 * `sharedDataTexts` reads.
 *
 * @example
 * const texts = await projectEvaluationTexts(); // [{ source: "labelled/fresh-kinds.txt", text: "…" }, …]
 */
export async function projectEvaluationTexts(): Promise<EvaluationText[]> {
  const texts: EvaluationText[] = [];
  for (const folder of ["labelled", "unseen"]) {
    const dir = join(FACTS_DIR, folder);
    for (const name of (await readdir(dir)).filter((file) => file.endsWith(".txt")).sort()) {
      const file = parseLabelledFile(await readFile(join(dir, name), "utf8"), name);
      for (const stream of file.streams)
        for (const turn of stream.turns) if (turn.text) texts.push({ source: `${folder}/${name}`, text: turn.text });
    }
  }
  for (const [source, cases] of [
    ["cases.ts", FACT_CASES],
    ["held-out-cases.ts", HELD_OUT_FACT_CASES],
  ] as const)
    for (const factCase of cases) for (const session of factCase.sessions) texts.push({ source, text: session.say });
  return texts;
}

/**
 * Every sentence of the change-of-state sets said inside long histories (src/eval/changes/*.txt,
 * `npm run eval:changes`): each case's statements and question.
 *
 * @example
 * const texts = await changeSetTexts(); // [{ source: "changes/tuning.txt", text: "…" }, …]
 */
export async function changeSetTexts(): Promise<EvaluationText[]> {
  const texts: EvaluationText[] = [];
  for (const name of (await readdir(CHANGES_DIR)).filter((file) => file.endsWith(".txt")).sort()) {
    const source = `changes/${name}`;
    for (const entry of parseCaseSet(await readFile(join(CHANGES_DIR, name), "utf8"))) {
      const said = entry.kind === "case" ? [entry.first, entry.change, entry.question] : [entry.first, entry.later, entry.question];
      for (const text of said) texts.push({ source, text });
    }
  }
  return texts;
}

/**
 * The shared data directory (`../shared/data` beside the repository, or `EVAL_DATA_DIR`), as the
 * Postgres pass finds its tools (`PG_TOOLS_DIR`), and whether it is there.
 */
export function sharedDataDir(env: Record<string, string | undefined> = process.env): { dir: string; present: boolean } {
  const repository = fileURLToPath(new URL("../../", import.meta.url));
  const dir = env["EVAL_DATA_DIR"] ?? join(repository, "..", "shared", "data");
  return { dir, present: existsSync(join(dir, "locomo-dev")) && existsSync(join(dir, "longmemeval-dev")) };
}

/**
 * Every text of the shared development sets: each LoCoMo turn (with a shared photo's caption),
 * question and answer, and each LongMemEval haystack turn of either role, question and answer.
 */
export async function sharedDataTexts(dir: string): Promise<EvaluationText[]> {
  const texts: EvaluationText[] = [];
  const add = (source: string, text: unknown) => {
    if (typeof text === "string" && text.trim() !== "") texts.push({ source, text });
    else if (typeof text === "number") texts.push({ source, text: String(text) });
  };
  const locomo = join(dir, "locomo-dev");
  for (const name of (await readdir(locomo)).filter((file) => file.endsWith(".json")).sort()) {
    const raw = JSON.parse(await readFile(join(locomo, name), "utf8")) as Record<string, unknown>;
    const source = `locomo-dev/${name}`;
    for (const [field, value] of Object.entries(raw)) {
      if (!/^session_\d+$/.test(field) || !Array.isArray(value)) continue;
      for (const turn of value as { text?: unknown; blip_caption?: unknown }[]) {
        add(source, turn.text);
        add(source, turn.blip_caption);
      }
    }
    for (const qa of (raw["qa"] ?? []) as { question?: unknown; answer?: unknown; adversarial_answer?: unknown }[]) {
      add(source, qa.question);
      add(source, qa.answer);
      add(source, qa.adversarial_answer);
    }
  }
  const lines = gunzipSync(await readFile(join(dir, "longmemeval-dev", "questions.jsonl.gz")))
    .toString("utf8")
    .split("\n");
  const seen = new Set<string>();
  for (const line of lines) {
    if (line.trim() === "") continue;
    const question = JSON.parse(line) as { question?: unknown; answer?: unknown; haystack_sessions?: { content?: unknown }[][] };
    add("longmemeval-dev", question.question);
    add("longmemeval-dev", question.answer);
    // Haystacks share sessions: each distinct turn once.
    for (const session of question.haystack_sessions ?? [])
      for (const turn of session)
        if (typeof turn.content === "string" && !seen.has(turn.content)) {
          seen.add(turn.content);
          add("longmemeval-dev", turn.content);
        }
  }
  return texts;
}
