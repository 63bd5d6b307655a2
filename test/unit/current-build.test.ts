import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureCurrentBuild, isBuildCurrent } from "../fixtures/current-build.js";

/**
 * The suite's setup builds only when build/ is not today's sources' (issue 50: every vitest run
 * rebuilt the project, tens of seconds before the first test), and a stale build is always rebuilt.
 */
describe("the build before the tests", () => {
  it("is current after the suite's setup, so a second run does not build", () => {
    // The global setup of this very run made build/ current (building or not).
    const build = vi.fn();
    expect(ensureCurrentBuild(process.cwd(), build)).toBe("current");
    expect(build).not.toHaveBeenCalled();
  });

  describe("in a project of its own", () => {
    let root: string;
    const stamp = (command: "begin" | "end") => execFileSync(process.execPath, ["scripts/build-stamp.mjs", command], { cwd: root });
    const built = () => {
      stamp("begin");
      stamp("end");
    };
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "mnemo-build-stamp-"));
      await mkdir(join(root, "scripts"));
      await mkdir(join(root, "src", "deep"), { recursive: true });
      await copyFile("scripts/build-stamp.mjs", join(root, "scripts", "build-stamp.mjs"));
      await writeFile(join(root, "package.json"), "{}\n");
      await writeFile(join(root, "src", "deep", "module.ts"), "export const answer = 42;\n");
      await writeFile(join(root, "src", "deep", "module.test.ts"), "// a test: never built\n");
    });
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it("has no stamp before its first build, and a stamp after", () => {
      expect(isBuildCurrent(root)).toBe(false);
      built();
      expect(isBuildCurrent(root)).toBe(true);
    });

    it("is stale when a source changes, is added or removed; a test file changes nothing", async () => {
      built();
      await writeFile(join(root, "src", "deep", "module.test.ts"), "// edited test\n");
      expect(isBuildCurrent(root)).toBe(true);

      await writeFile(join(root, "src", "deep", "module.ts"), "export const answer = 43;\n");
      expect(isBuildCurrent(root)).toBe(false);
      const build = vi.fn(built);
      expect(ensureCurrentBuild(root, build)).toBe("rebuilt");
      expect(build).toHaveBeenCalledTimes(1);
      expect(isBuildCurrent(root)).toBe(true);

      await writeFile(join(root, "src", "added.ts"), "export {};\n");
      expect(isBuildCurrent(root)).toBe(false);
      built();
      await rm(join(root, "src", "added.ts"));
      expect(isBuildCurrent(root)).toBe(false);
      built();
      await writeFile(join(root, "package.json"), '{"dependencies":{}}\n');
      expect(isBuildCurrent(root)).toBe(false);
    });

    it("a build that failed (begun, never ended) leaves no stamp", () => {
      built();
      stamp("begin");
      expect(isBuildCurrent(root)).toBe(false);
    });
  });
});
