import { type Env, parseEnv } from "../config/env.js";

/**
 * The settings that choose and reach the language model and the embedder. An evaluation runs with
 * the providers its shell names (offline when it names none), so that a real model can be measured
 * on the same sets; no other setting of the shell reaches it, since a setting measured is given
 * on the command line.
 */
const PROVIDER_SETTING = /^(?:LLM_PROVIDER|EMBEDDING_PROVIDER|PROVIDER_TIMEOUT|GEMINI_[A-Z_]+|OPENAI_[A-Z_]+)$/;

/** The provider settings of `shell`, the rest left out. */
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

/** Which models an evaluation runs with, for the first lines of its report: "language model offline, embedder gemini gemini-embedding-001". */
export function providersLine(env: Env): string {
  const model = (provider: Env["LLM_PROVIDER"], gemini: string, openai: string | undefined) =>
    provider === "offline" ? provider : `${provider} ${provider === "gemini" ? gemini : openai}`;
  const language = model(env.LLM_PROVIDER, env.GEMINI_MODEL, env.OPENAI_MODEL);
  return `language model ${language}, embedder ${model(env.EMBEDDING_PROVIDER, env.GEMINI_EMBEDDING_MODEL, env.OPENAI_EMBEDDING_MODEL)}`;
}
