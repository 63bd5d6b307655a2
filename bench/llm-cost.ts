import { parseArgs } from "node:util";
import { startRuntime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { parseEnv } from "../src/config/env.js";
import { o200kTokenizer } from "../src/context/o200k-tokenizer.js";
import { loadLocomo } from "../src/eval/locomo.js";
import { offlineLanguageModel } from "../src/providers/offline/offline-language-model.js";
import { extractionPrompt, summaryPrompt } from "../src/providers/prompts.js";
import type { LanguageModel } from "../src/providers/types.js";

/**
 * `npm run bench:llm-cost [-- --file <locomo json>]`: the LLM calls and tokens consolidation
 * costs per 100 events with the Gemini provider, counted from the exact prompts it would send.
 * Results come from the offline model (Gemini is unreachable here); output tokens are therefore
 * those of the offline answers, an approximation, while calls and prompt tokens are exact up to
 * the tokenizer (o200k, not Gemini's).
 */
const { values } = parseArgs({ options: { file: { type: "string", default: "../shared/data/locomo-dev/26.json" } } });
const conversation = await loadLocomo(values.file as string);
const usage = { summarize: { calls: 0, prompt: 0, output: 0 }, extract: { calls: 0, prompt: 0, output: 0 } };
const counting: LanguageModel = {
  id: "gemini-request-counter",
  async summarize(request) {
    const summary = await offlineLanguageModel.summarize(request);
    usage.summarize.calls++;
    usage.summarize.prompt += o200kTokenizer.count(summaryPrompt(request));
    usage.summarize.output += o200kTokenizer.count(summary.text);
    return summary;
  },
  async extract(request) {
    const extraction = await offlineLanguageModel.extract(request);
    usage.extract.calls++;
    usage.extract.prompt += o200kTokenizer.count(extractionPrompt(request));
    usage.extract.output += o200kTokenizer.count(JSON.stringify(extraction));
    return extraction;
  },
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
  { providers: { llm: counting } },
);
const json = { "content-type": "application/json" };
let events = 0;
try {
  for (const session of conversation.sessions) {
    const created = await runtime.app.request("/v1/sessions", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ user_id: "cost", started_at: session.startedAt.toISOString() }),
    });
    const { id } = (await created.json()) as { id: string };
    const body = session.turns.map((turn, i) => ({
      type: "message",
      role: turn.speaker === conversation.speakerA ? "user" : "assistant",
      content: turn.text,
      data: { speaker: turn.speaker, dia_id: turn.diaId },
      occurred_at: new Date(session.startedAt.getTime() + i * 30_000).toISOString(),
    }));
    await runtime.app.request(`/v1/sessions/${id}/events`, { method: "POST", headers: json, body: JSON.stringify({ events: body }) });
    await runtime.app.request(`/v1/sessions/${id}/end`, { method: "POST" });
    events += body.length;
  }
  await waitForSettled(runtime.app, "cost", { intervalMs: 200 });
  const per100 = (value: number) => ((value * 100) / events).toFixed(1);
  console.log(`${conversation.sessions.length} sessions, ${events} events (${values.file})\n`);
  console.log(
    `${"call".padEnd(12)} ${"calls/100 ev".padStart(13)} ${"prompt tok/100 ev".padStart(18)} ${"output tok/100 ev".padStart(18)}`,
  );
  for (const [name, row] of Object.entries(usage)) {
    console.log(
      `${name.padEnd(12)} ${per100(row.calls).padStart(13)} ${per100(row.prompt).padStart(18)} ${per100(row.output).padStart(18)}`,
    );
  }
  const total = usage.summarize.calls + usage.extract.calls;
  console.log(
    `${"total".padEnd(12)} ${per100(total).padStart(13)} ${per100(usage.summarize.prompt + usage.extract.prompt).padStart(18)} ${per100(usage.summarize.output + usage.extract.output).padStart(18)}`,
  );
  console.log(JSON.stringify({ bench: "llm-cost", events, usage }));
} finally {
  await runtime.close();
}
