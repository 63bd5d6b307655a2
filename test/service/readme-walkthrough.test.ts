import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../../src/config/env.js";
import { freshDatabase, type TestDatabase } from "../fixtures/database.js";
import { finished } from "../fixtures/finished.js";
import { type RunningService, startService } from "../fixtures/service-process.js";

/**
 * The README's walk-through, as a newcomer runs it: its commands name the service once, as
 * `BASE` (issue 50: `localhost:8787` was spelled out in every command), and run as written against
 * the built service they produce what the README says they produce.
 */
const readme = await readFile("README.md", "utf8");
const walkThrough = /## Walk-through[\s\S]*?```bash\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
const CURL = ["/usr/bin/curl", "/bin/curl", "/usr/local/bin/curl"].some((path) => existsSync(path));

describe("the README walk-through", () => {
  it("names the service once, as BASE, where `npm start` listens by default", () => {
    const lines = walkThrough.split("\n").filter((line) => line.trim() && !line.startsWith("#"));
    expect(lines[0]).toBe("BASE=http://localhost:8787");
    const defaults = parseEnv({});
    expect(`http://localhost:${defaults.PORT}`).toBe("http://localhost:8787");
    // Every request goes to $BASE; no address is spelled anywhere else.
    expect(walkThrough.split("\n").slice(1).join("\n")).not.toMatch(/localhost|127\.0\.0\.1|:8787/);
    const requests = walkThrough.match(/curl [^\n]*/g) ?? [];
    expect(requests.length).toBeGreaterThan(10);
    for (const request of requests) expect(request).toMatch(/ "?\$BASE\//);
    // The first two commands of the README are still the ones it starts with.
    expect(readme).toMatch(/```bash\nnpm ci && npm start {3}# [^\n]*http:\/\/localhost:8787\nnpm test {14}# /);
  });

  describe.runIf(CURL)("run against the built service", () => {
    let database: TestDatabase;
    let service: RunningService;
    beforeAll(async () => {
      database = await freshDatabase();
      service = await startService(database.env, 300_000);
    }, 300_000);
    afterAll(async () => {
      service?.kill();
      await database?.drop();
    });

    it("produces the facts and the history the README shows", async () => {
      const script = walkThrough.replace(/^BASE=.*$/m, `BASE=${service.url}`);
      // The script's own waits loop until the pipeline settles: a bound, generous for a loaded machine.
      const { code, stdout, stderr } = await finished(
        spawn("bash", ["-eo", "pipefail", "-c", script], { stdio: ["ignore", "pipe", "pipe"] }),
        240_000,
      );
      expect(code, stderr).toBe(0);
      // Step 6's three facts, as the README lists them (key | content), each naming its extractor.
      const listed = /Step 6 returns these three facts[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
      const facts = listed
        .trim()
        .split("\n")
        .map((line) => line.split("|").map((part) => part.trim()));
      expect(facts).toHaveLength(3);
      for (const [key, content] of facts) {
        expect(stdout).toContain(`"key":"${key}"`);
        expect(stdout).toContain(`"content":"${content}"`);
      }
      expect(stdout).toMatch(/"extractor":\{"name":"offline-rules","version":"[0-9a-f]{12}"\}/);
      // Step 7 ends with the Lisbon fact's history (curl prints no newline after a body): added, then superseded.
      const history = JSON.parse(stdout.slice(stdout.lastIndexOf('{"memory_id"'))) as {
        history: { operation: string; before: { content?: string } | null }[];
      };
      expect(history.history.map((entry) => entry.operation)).toEqual(["ADD", "SUPERSEDE"]);
      expect(history.history[1]?.before?.content).toBe("User lives in Lisbon.");
    });
  });
});
