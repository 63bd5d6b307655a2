import { describe, expect, it } from "vitest";
import { ablationEnv } from "./ablation-settings.js";

describe("the settings an ablation's value runs under", () => {
  it("are one setting, a group of them, or none", () => {
    expect(ablationEnv(undefined, "default")).toEqual({});
    expect(ablationEnv("RECALL_GRAPH", "1")).toEqual({ RECALL_GRAPH: "1" });
    expect(ablationEnv("SETTINGS", "defaults")).toEqual({});
    expect(ablationEnv("SETTINGS", "A=0&B=x=y")).toEqual({ A: "0", B: "x=y" });
    expect(() => ablationEnv("SETTINGS", "A")).toThrow(/NAME=value/);
  });

  it("never name a provider: the import and the answers embed alike", () => {
    expect(() => ablationEnv("EMBEDDING_PROVIDER", "gemini")).toThrow("--ablate: EMBEDDING_PROVIDER");
    expect(() => ablationEnv("SETTINGS", "RECALL_GRAPH=1&GEMINI_EMBEDDING_DIMENSIONS=1536")).toThrow(
      "--ablate: GEMINI_EMBEDDING_DIMENSIONS",
    );
  });
});
