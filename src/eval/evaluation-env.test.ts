import { describe, expect, it } from "vitest";
import { evaluationEnv, providerSettings, providersLine } from "./evaluation-env.js";

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

  it("run offline when the shell names no provider", () => {
    const env = evaluationEnv("memory://", {}, { PATH: "/usr/bin" });
    expect([env.LLM_PROVIDER, env.EMBEDDING_PROVIDER]).toEqual(["offline", "offline"]);
    expect(providersLine(env)).toBe("language model offline, embedder offline");
  });

  it("put the setting measured over the shell's", () => {
    const env = evaluationEnv("memory://", { PROVIDER_TIMEOUT: "5s" }, { PROVIDER_TIMEOUT: "90s" });
    expect(env.PROVIDER_TIMEOUT).toBe("5s");
  });

  it("name the model of each provider", () => {
    const env = evaluationEnv("memory://", {}, { LLM_PROVIDER: "gemini", GEMINI_API_KEY: "k", EMBEDDING_PROVIDER: "gemini" });
    expect(providersLine(env)).toBe(`language model gemini ${env.GEMINI_MODEL}, embedder gemini ${env.GEMINI_EMBEDDING_MODEL}`);
  });

  it("refuse a provider the shell names without what it needs, naming the setting", () => {
    expect(() => evaluationEnv("memory://", {}, { EMBEDDING_PROVIDER: "gemini" })).toThrow(/GEMINI_API_KEY/);
    expect(() => evaluationEnv("memory://", {}, { EMBEDDING_PROVIDER: "cohere" })).toThrow(/EMBEDDING_PROVIDER/);
  });
});
