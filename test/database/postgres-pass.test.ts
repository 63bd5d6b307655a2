import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { testDatabaseUrl } from "../fixtures/database.js";
import { type Finished, finished } from "../fixtures/finished.js";

/**
 * Issue 50: `npm test` on a machine with PostgreSQL 15 + pgvector but without the team's
 * `../shared/postgres` failed (`sh: cannot open …/shared/postgres/start-postgres.sh`). The
 * Postgres pass (`scripts/test-postgres.sh`) now starts its cluster with the repository's own
 * `scripts/start-postgres.sh`; `TEST_DATABASE_URL` still names a server instead; a machine with
 * neither skips the pass with one line.
 */
const PG_BIN = process.env["PG_BIN"] ?? "/usr/lib/postgresql/15/bin";
const installed = existsSync(`${PG_BIN}/pg_ctl`) && existsSync(`${PG_BIN}/../lib/vector.so`);

/** Runs the pass's script as `npm test` would, in an environment of our choosing (no vitest variables of this run). */
function testPostgres(args: string[], env: Record<string, string | undefined>): Promise<Finished> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(VITEST|TEST_DATABASE_URL$|PG_BIN$|PG_TOOLS_DIR$|NODE_ENV$)/.test(name)),
  );
  return finished(
    spawn("bash", ["scripts/test-postgres.sh", ...args], {
      env: { ...base, ...env, PG_TOOLS_DIR: "/nonexistent/shared/postgres" },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

/** A vitest run that selects no file: the pass's server, global setup and template database, no tests. */
const NO_TESTS = ["--passWithNoTests", "no-test-file-is-named-like-this"];

describe("the Postgres pass of `npm test`", () => {
  it("without a server (nor TEST_DATABASE_URL) is skipped with one line by `npm test`, and refused when asked for", async () => {
    const skipped = await testPostgres(["--if-available", ...NO_TESTS], { PG_BIN: "/nonexistent/bin" });
    expect(skipped.code).toBe(0);
    expect(skipped.stderr.trim().split("\n")).toEqual([
      "skipped the PostgreSQL pass: PostgreSQL 15 with pgvector not found in /nonexistent/bin (install postgresql-15 and pgvector, or set PG_BIN or TEST_DATABASE_URL; see docs/testing.md)",
    ]);
    expect(skipped.stdout).toBe("");

    const refused = await testPostgres(NO_TESTS, { PG_BIN: "/nonexistent/bin" });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("PostgreSQL 15 with pgvector not found in /nonexistent/bin");
  });

  // On the PGlite pass (the Postgres one has its server already): a cluster of the pass's own.
  it.runIf(installed && !testDatabaseUrl)(
    "starts its cluster with the repository's script, without ../shared/postgres, and migrates its template there",
    async () => {
      const run = await testPostgres(NO_TESTS, {});
      expect(run.stderr).not.toContain("shared/postgres");
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^tests on PostgreSQL: postgres:\/\/postgres@127\.0\.0\.1:\d+\/mnemo$/m);
    },
  );

  it.runIf(testDatabaseUrl)("uses TEST_DATABASE_URL's server when it is set, whatever is installed", async () => {
    const run = await testPostgres(NO_TESTS, { TEST_DATABASE_URL: testDatabaseUrl, PG_BIN: "/nonexistent/bin" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`tests on PostgreSQL: ${testDatabaseUrl}`);
  });
});
