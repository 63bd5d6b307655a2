import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabaseUrl } from "../fixtures/database.js";
import { admin, withDatabase } from "../fixtures/global-setup.js";
import { type FailedStart, startExpectingFailure } from "../fixtures/service-process.js";

/**
 * Every misconfiguration stops `npm start` with one line naming the setting (or the host) and the
 * cause, exit code 1, no stack trace unless LOG_LEVEL=debug — run as an operator would, against
 * the built entry.
 */
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "mnemo-startup-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const base = () => ({ PORT: "0", DATA_DIR: join(scratch, "data"), LOG_LEVEL: "info" });

/** The single failure line: JSON, level error, "cannot start: …", without a stack. */
function failureLine(result: FailedStart): { message: string; stack?: string } {
  expect(result.code).toBe(1);
  const errors = result.lines
    .map((line) => JSON.parse(line) as { level: string; message: string; stack?: string })
    .filter((line) => line.level === "error");
  expect(errors).toHaveLength(1);
  const [error] = errors;
  expect(error?.message).toMatch(/^cannot start: /);
  // Nothing but JSON lines on stderr: no stack printed around them.
  expect(result.lines.some((line) => /^\s+at /.test(line))).toBe(false);
  return error as { message: string; stack?: string };
}

describe("start-up failures", () => {
  it("INNGEST_MODE=cloud without keys names both keys", async () => {
    const line = failureLine(await startExpectingFailure({ ...base(), INNGEST_MODE: "cloud" }));
    expect(line.message).toContain("INNGEST_EVENT_KEY: required when INNGEST_MODE=cloud");
    expect(line.message).toContain("INNGEST_SIGNING_KEY: required when INNGEST_MODE=cloud");
    expect(line.stack).toBeUndefined();
  });

  it("an invalid value names the setting", async () => {
    const line = failureLine(await startExpectingFailure({ ...base(), PORT: "eighty" }));
    expect(line.message).toContain("PORT:");
  });

  it("an unreachable DATABASE_URL names the host and the cause", async () => {
    const closed = await freePort();
    const line = failureLine(await startExpectingFailure({ ...base(), DATABASE_URL: `postgres://mnemo:secret@127.0.0.1:${closed}/mnemo` }));
    expect(line.message).toBe(
      `cannot start: DATABASE_URL mnemo@127.0.0.1:${closed}/mnemo: connection refused: nothing listens there (ECONNREFUSED)`,
    );
    expect(line.message).not.toContain("secret");
  });

  it("a server that takes the connection and never answers names the connect timeout (issue 50: was 'failed')", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const started = performance.now();
      const result = await startExpectingFailure({
        ...base(),
        DATABASE_URL: `postgres://mnemo:secret@127.0.0.1:${port}/mnemo`,
        DATABASE_CONNECT_TIMEOUT: "1s",
      });
      expect(failureLine(result).message).toBe(
        `cannot start: DATABASE_URL mnemo@127.0.0.1:${port}/mnemo: timed out connecting: no answer within DATABASE_CONNECT_TIMEOUT`,
      );
      // The setting bounds it: not a hang (any bound tells them apart; a loaded machine needs a generous one).
      expect(performance.now() - started).toBeLessThan(45_000);
    } finally {
      silent.close();
    }
  });

  it.runIf(testDatabaseUrl)("a role the server refuses, and a database it does not have, are named with their cause", async () => {
    const server = new URL(testDatabaseUrl as string);
    const role = new URL(server);
    role.username = "nobody_here";
    const refused = failureLine(await startExpectingFailure({ ...base(), DATABASE_URL: role.toString() }));
    expect(refused.message).toContain(`DATABASE_URL nobody_here@${server.host}`);
    expect(refused.message).toMatch(/\((28000|28P01)\)$/);
    const missing = new URL(server);
    missing.pathname = "/no_such_database";
    const absent = failureLine(await startExpectingFailure({ ...base(), DATABASE_URL: missing.toString() }));
    expect(absent.message).toMatch(/no_such_database: the database does not exist \(3D000\)$/);
  });

  it.runIf(testDatabaseUrl)(
    "a database that was never migrated is named with the command that migrates it, not a failed query",
    async () => {
      const name = `never_migrated_${process.pid}`;
      await admin(testDatabaseUrl as string, (client) => client.query(`CREATE DATABASE "${name}"`));
      try {
        const empty = failureLine(await startExpectingFailure({ ...base(), DATABASE_URL: withDatabase(testDatabaseUrl as string, name) }));
        expect(empty.message).toMatch(new RegExp(`/${name}: the database was never migrated: run \`npx mnemo migrate\``));
      } finally {
        await admin(testDatabaseUrl as string, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      }
    },
  );

  it("an unusable DATA_DIR is named within seconds, not a hang", async () => {
    // A hang never ends: any bound tells it from an answer, and a loaded machine needs a generous one.
    const proc = await startExpectingFailure({ ...base(), DATA_DIR: "/proc/nope" }, 60_000);
    expect(failureLine(proc).message).toBe("cannot start: DATA_DIR /proc/nope: the directory cannot be created there (ENOENT)");
    const file = join(scratch, "a-file");
    await writeFile(file, "not a directory");
    const line = failureLine(await startExpectingFailure({ ...base(), DATA_DIR: join(file, "data") }));
    expect(line.message).toMatch(/DATA_DIR .*a-file\/data: .*\((ENOTDIR|EEXIST)\)$/);
  });

  describe("with the port taken", () => {
    let taken: Server;
    let port: number;
    beforeAll(async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
      port = (taken.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    it("names the port and the cause", async () => {
      const line = failureLine(await startExpectingFailure({ ...base(), PORT: String(port) }));
      expect(line.message).toBe(
        `cannot start: PORT ${port} on HOST 127.0.0.1: address already in use: another process listens there (EADDRINUSE)`,
      );
    });

    it("adds the stack with LOG_LEVEL=debug", async () => {
      const result = await startExpectingFailure({ ...base(), PORT: String(port), LOG_LEVEL: "debug" });
      expect(result.code).toBe(1);
      const error = result.lines
        .map((line) => JSON.parse(line) as { level: string; stack?: string })
        .find((line) => line.level === "error");
      expect(error?.stack).toContain("EADDRINUSE");
    });
  });
});

/** A port nothing listens on (taken from the system, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
