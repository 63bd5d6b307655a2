import { providerChoice } from "../../functions/settings.js";
import { type Env, parseEnv } from "../config/env.js";
import { createProviders } from "../providers/index.js";
import { createUseEmbedder } from "../providers/offline/use-embedder.js";

/**
 * The settings that choose and reach the language model and the embedder. An evaluation runs with
 * the providers its shell names (offline when it names none), so that a real model can be measured
 * on the same sets; no other setting of the shell reaches it, since a setting measured is given
 * on the command line.
 */
const PROVIDER_SETTING = /^(?:LLM_PROVIDER|EMBEDDING_PROVIDER|PROVIDER_TIMEOUT|GEMINI_[A-Z_]+|OPENAI_[A-Z_]+)$/;

/** The provider settings of `shell`, the rest left out (and those `--with` or `--ablate` were given, which refuse them). */
export function providerSettings(shell: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(shell).filter((entry): entry is [string, string] => PROVIDER_SETTING.test(entry[0]) && entry[1] !== undefined),
  );
}

/**
 * The service settings every evaluation runs with: quiet, short debounces so each session is
 * derived before the next one starts, no rate limit (one caller sends thousands of requests), and
 * the shell's providers; `extra` (the setting measured, a database) over them all.
 *
 * @example
 * evaluationEnv("/tmp/lme/data", { CONTEXT_LATER_SHARE: "0" }); // with EMBEDDING_PROVIDER=gemini in the shell, embeds with Gemini
 */
export function evaluationEnv(dataDir: string, extra: Record<string, string> = {}, shell = process.env): Env {
  return parseEnv({
    DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    REPLAY_DEBOUNCE: "100ms",
    REFLECTION_DEBOUNCE: "100ms",
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "0",
    ...providerSettings(shell),
    ...extra,
  });
}

/** The models an evaluation runs with, by the ids their output is recorded under. */
export interface EvaluationModels {
  /** The language model's id (facts record it as their extractor). */
  languageModel: string;
  /** The embedder's model id (memories record it beside their vectors; a kept import is checked against it). */
  embedder: string;
}

/**
 * The models the service started with `env` runs, known before it starts: the providers are made
 * as the service makes them and set aside (the offline models start their worker threads only when
 * first used).
 *
 * @example
 * await evaluationModels(evaluationEnv("memory://")); // { languageModel: "offline-rules@…", embedder: "use-lite-512" }
 */
export async function evaluationModels(env: Env): Promise<EvaluationModels> {
  const { llm, embedder } = await createProviders(providerChoice(env), { embedder: createUseEmbedder });
  return { languageModel: llm.id, embedder: embedder.model };
}

/** Which models an evaluation runs with, for the first lines of its report. */
export const modelsLine = (models: EvaluationModels) => `language model ${models.languageModel}, embedder ${models.embedder}`;

/**
 * Refuses provider settings among the settings a command measures (`--with`, `--ablate`): the
 * import and the answers must embed alike, so the providers come from the shell, which both take.
 */
export function refuseProviderSettings(option: string, settings: Record<string, string>): void {
  const named = Object.keys(settings).filter((name) => PROVIDER_SETTING.test(name));
  if (named.length > 0)
    throw new Error(`${option}: ${named.join(", ")}: the providers are set in the shell, where the import and the answers both take them`);
}
