import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { startRuntime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { parseEnv } from "../src/config/env.js";
import { o200kTokenizer } from "../src/context/tokenizer.js";
import { queryRows } from "../src/db/database.js";
import { bm25Ranker, newestFirst, packTurns, type Turn } from "../src/eval/baselines.js";
import { loadLocomo } from "../src/eval/locomo.js";

/**
 * `npm run eval:locomo -- <dir> [--budgets 500,1000,2000,4000]`: evidence recall of context
 * windows on LoCoMo (categories 1-4), next to BM25 and newest-turns baselines computed in the same
 * run on the same turn texts. A turn counts as contained when the window holds a memory whose
 * sources include its event. Runs offline on the embedded default.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { budgets: { type: "string", default: "500,1000,2000,4000" } },
});
const dir = positionals[0] ?? "../shared/data/locomo-dev";
const budgets = (values.budgets as string).split(",").map(Number);
const files = (await readdir(dir)).filter((file) => file.endsWith(".json")).sort();
const json = { "content-type": "application/json" };

type Scores = Record<string, Record<number, number[]>>;
const scores: Scores = { ours: {}, bm25: {}, newest: {} };
const byCategory: Record<string, number[]> = {};
const record = (system: string, budget: number, recall: number) => {
  const bySystem = scores[system] as Record<number, number[]>;
  bySystem[budget] = [...(bySystem[budget] ?? []), recall];
};

const runtime = await startRuntime(
  parseEnv({
    DATA_DIR: "memory://",
    LOG_LEVEL: "error",
    REPLAY_DEBOUNCE: "200ms",
    REFLECTION_DEBOUNCE: "200ms",
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "0",
  }),
);
try {
  for (const file of files) {
    const conversation = await loadLocomo(join(dir, file));
    const userId = `locomo-${basename(file, ".json")}`;
    const turns: Turn[] = [];
    for (const session of conversation.sessions) {
      const created = await runtime.app.request("/v1/sessions", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ user_id: userId, started_at: session.startedAt.toISOString() }),
      });
      const { id } = (await created.json()) as { id: string };
      const events = session.turns.map((turn, i) => {
        const text = turn.caption ? `${turn.text} [shares ${turn.caption}]` : turn.text;
        turns.push({ diaId: turn.diaId, speaker: turn.speaker, text, order: turns.length });
        return {
          type: "message",
          role: turn.speaker === conversation.speakerA ? "user" : "assistant",
          content: text,
          data: { speaker: turn.speaker, dia_id: turn.diaId },
          occurred_at: new Date(session.startedAt.getTime() + i * 30_000).toISOString(),
        };
      });
      const appended = await runtime.app.request(`/v1/sessions/${id}/events`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ events }),
      });
      if (appended.status !== 201) throw new Error(`import failed: ${await appended.text()}`);
      await runtime.app.request(`/v1/sessions/${id}/end`, { method: "POST" });
    }
    await waitForSettled(runtime.app, userId, { intervalMs: 250 });
    const diaByEvent = new Map(
      (
        await queryRows<{ id: string; dia_id: string }>(
          runtime.database.db,
          sql`SELECT id, data ->> 'dia_id' AS dia_id FROM session_events WHERE user_id = ${userId}`,
        )
      ).map((row) => [row.id, row.dia_id]),
    );
    const bm25 = bm25Ranker(turns);
    const newest = newestFirst(turns);
    const questions = conversation.qa.filter((qa) => qa.category >= 1 && qa.category <= 4 && qa.evidence.length > 0);
    for (const qa of questions) {
      const evidence = new Set(qa.evidence.flatMap((id) => id.split(/[;,\s]+/)).filter(Boolean));
      const recall = (contained: Set<string>) => [...evidence].filter((id) => contained.has(id)).length / evidence.size;
      const ranked = bm25(qa.question);
      for (const budget of budgets) {
        const response = await runtime.app.request("/v1/context", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ user_id: userId, query: qa.question, max_tokens: budget }),
        });
        const window = (await response.json()) as { sections: { items: { sources: { event_id: string }[] }[] }[]; total_tokens: number };
        if (window.total_tokens > budget) throw new Error(`window over budget: ${window.total_tokens} > ${budget}`);
        const contained = new Set(
          window.sections.flatMap((section) =>
            section.items.flatMap((item) => item.sources.map((source) => diaByEvent.get(source.event_id) ?? "")),
          ),
        );
        record("ours", budget, recall(contained));
        record("bm25", budget, recall(packTurns(ranked, budget, o200kTokenizer)));
        record("newest", budget, recall(packTurns(newest, budget, o200kTokenizer)));
        if (budget === 2000) byCategory[`ours c${qa.category}`] = [...(byCategory[`ours c${qa.category}`] ?? []), recall(contained)];
      }
    }
    console.log(`${file}: ${conversation.sessions.length} sessions, ${turns.length} turns, ${questions.length} questions`);
  }
  const mean = (values: number[] = []) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : Number.NaN);
  console.log(
    `\nevidence recall (mean over questions, categories 1-4)\n${"budget".padEnd(8)} ${"ours".padStart(7)} ${"bm25".padStart(7)} ${"newest".padStart(7)}`,
  );
  for (const budget of budgets) {
    console.log(
      `${String(budget).padEnd(8)} ${mean(scores.ours?.[budget]).toFixed(3).padStart(7)} ${mean(scores.bm25?.[budget]).toFixed(3).padStart(7)} ${mean(scores.newest?.[budget]).toFixed(3).padStart(7)}`,
    );
  }
  console.log(
    `\nours at 2000 tokens by category: ${Object.entries(byCategory)
      .sort()
      .map(([key, values]) => `${key}=${mean(values).toFixed(3)} (n=${values.length})`)
      .join(", ")}`,
  );
  console.log(
    JSON.stringify({
      eval: "locomo",
      files,
      budgets,
      recall: Object.fromEntries(
        Object.entries(scores).map(([system, rows]) => [
          system,
          Object.fromEntries(Object.entries(rows).map(([budget, values]) => [budget, mean(values)])),
        ]),
      ),
    }),
  );
} finally {
  await runtime.close();
}
