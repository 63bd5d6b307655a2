import { describe, expect, it } from "vitest";
import { evaluationEnv, evaluationModels, modelsLine, providerSettings, refuseProviderSettings } from "./evaluation-env.js";

describe("an evaluation's settings", () => {
  it("take the shell's providers and no other setting of the shell", () => {
    const shell = {
      EMBEDDING_PROVIDER: "openai",
      OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
      OPENAI_EMBEDDING_MODEL: "local-embedder",
      DATABASE_URL: "postgres://elsewhere/db",
      CONTEXT_LATER_SHARE: "0",
      HOME: "/root",
    };
    expect(providerSettings(shell)).toEqual({
      EMBEDDING_PROVIDER: "openai",
      OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
      OPENAI_EMBEDDING_MODEL: "local-embedder",
    });
    const env = evaluationEnv("memory://", {}, shell);
    expect(env.EMBEDDING_PROVIDER).toBe("openai");
    expect(env.OPENAI_EMBEDDING_MODEL).toBe("local-embedder");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.CONTEXT_LATER_SHARE).not.toBe(0);
  });

  it("run offline when the shell names no provider", async () => {
    const env = evaluationEnv("memory://", {}, { PATH: "/usr/bin" });
    expect([env.LLM_PROVIDER, env.EMBEDDING_PROVIDER]).toEqual(["offline", "offline"]);
    const models = await evaluationModels(env);
    expect(models.embedder).toBe("use-lite-512");
    expect(modelsLine(models)).toMatch(/^language model offline-rules@\S+, embedder use-lite-512$/);
  });

  it("put the settings a command gives over an evaluation's own", () => {
    expect(evaluationEnv("memory://", {}, {}).LOG_LEVEL).toBe("error");
    expect(evaluationEnv("memory://", { LOG_LEVEL: "debug" }, {}).LOG_LEVEL).toBe("debug");
  });

  it("name each model by the id its output is recorded under, before any service starts", async () => {
    const gemini = evaluationEnv("memory://", {}, { LLM_PROVIDER: "gemini", GEMINI_API_KEY: "k", EMBEDDING_PROVIDER: "gemini" });
    expect(await evaluationModels(gemini)).toEqual({
      languageModel: expect.stringContaining(gemini.GEMINI_MODEL),
      embedder: `gemini:${gemini.GEMINI_EMBEDDING_MODEL}@${gemini.GEMINI_EMBEDDING_DIMENSIONS}`,
    });
    const local = evaluationEnv(
      "memory://",
      {},
      {
        EMBEDDING_PROVIDER: "openai",
        OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
        OPENAI_EMBEDDING_MODEL: "local-embedder",
      },
    );
    expect((await evaluationModels(local)).embedder).toBe("openai-compatible:127.0.0.1:8080/local-embedder");
  });

  it("refuse providers among the settings a command measures, naming them", () => {
    expect(() => refuseProviderSettings("--with", { CONTEXT_LATER_SHARE: "0.1", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })).toThrow(
      "--with: OPENAI_BASE_URL: the providers are set in the shell",
    );
    expect(() => refuseProviderSettings("--with", { EMBEDDING_PROVIDER: "" })).toThrow("--with: EMBEDDING_PROVIDER");
    expect(() => refuseProviderSettings("--with", { CONTEXT_LATER_SHARE: "0.1" })).not.toThrow();
  });

  it("refuse a provider the shell names without what it needs, naming the setting", () => {
    expect(() => evaluationEnv("memory://", {}, { EMBEDDING_PROVIDER: "gemini" })).toThrow(/GEMINI_API_KEY/);
    expect(() => evaluationEnv("memory://", {}, { EMBEDDING_PROVIDER: "cohere" })).toThrow(/EMBEDDING_PROVIDER/);
  });
});
