import { describe, expect, it } from "vitest";
import { createHashingEmbedder } from "./hashing-embedder.js";

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);

describe("hashing embedder (Workers without a Gemini key)", () => {
  it("gives deterministic unit vectors that rank shared words above unrelated text", async () => {
    const embedder = createHashingEmbedder();
    const [query, related, unrelated, again, empty] = await embedder.embed([
      "moving to Porto",
      "I am moving to Porto in spring",
      "my cat likes tuna",
      "moving to Porto",
      "",
    ]);
    for (const vector of [query, related, unrelated, empty]) {
      expect(vector).toHaveLength(256);
      expect(Math.hypot(...(vector as number[]))).toBeCloseTo(1, 6);
    }
    expect(again).toEqual(query);
    expect(cosine(query as number[], related as number[])).toBeGreaterThan(0.5);
    expect(cosine(query as number[], related as number[])).toBeGreaterThan(cosine(query as number[], unrelated as number[]) + 0.3);
    expect(embedder.model).toBe("hashing-256");
  });
});
