import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/** `eval:locomo` refuses an option it would not honour, by name, before it reads any data. */
describe("eval:locomo options", () => {
  it("refuses --import-dir without --ablate, which alone keeps an import", () => {
    const run = spawnSync("npx", ["tsx", "scripts/eval-locomo.ts", "/nonexistent/locomo", "--import-dir", "/tmp/kept-locomo"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--import-dir: only with --ablate");
  });
});
