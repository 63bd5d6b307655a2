import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/db/connection-errors.js";
import { acquireDataDirLock, DataDirInUseError, dataDirHolder } from "../../src/db/data-dir-lock.js";
import { releaseClientOnFailedBegin } from "../../src/db/release-failed-begin.js";

describe("isDatabaseUnavailable", () => {
  const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: select 1"), { cause });
  it.each([
    [
      "a terminated backend (57P01), wrapped by drizzle",
      wrapped(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })),
    ],
    ["a server starting up (57P03)", Object.assign(new Error("the database system is starting up"), { code: "57P03" })],
    ["a connection exception (08006)", Object.assign(new Error("connection failure"), { code: "08006" })],
    ["too many connections (53300)", Object.assign(new Error("sorry, too many clients already"), { code: "53300" })],
    ["a refused socket", wrapped(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }))],
    ["a connection that ended", new Error("Connection terminated unexpectedly")],
    ["a client that lost its connection", new Error("Client has encountered a connection error and is not queryable")],
    ["no connection within the timeout", new Error("timeout exceeded when trying to connect")],
  ])("%s", (_name, error) => expect(isDatabaseUnavailable(error)).toBe(true));

  it.each([
    ["a unique violation", Object.assign(new Error("duplicate key value"), { code: "23505" })],
    ["a syntax error", wrapped(Object.assign(new Error("syntax error at or near"), { code: "42601" }))],
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["not an error", "nothing"],
  ])("not %s", (_name, error) => expect(isDatabaseUnavailable(error)).toBe(false));
});

describe("releaseClientOnFailedBegin", () => {
  function fakePool(failBegin: boolean) {
    const released: unknown[] = [];
    const client = {
      query: async (config: string | { text: string }) => {
        const text = typeof config === "string" ? config : config.text;
        if (failBegin && text === "begin") throw new Error("Connection terminated unexpectedly");
        return { rows: [] };
      },
      release: (error?: unknown) => released.push(error ?? "healthy"),
    };
    const pool = { connect: (callback?: unknown) => (typeof callback === "function" ? callback(null, client) : Promise.resolve(client)) };
    return { pool: releaseClientOnFailedBegin(pool), client, released };
  }

  it("releases, with the error, a client whose BEGIN failed", async () => {
    const { pool, released } = fakePool(true);
    const client = (await pool.connect()) as { query(config: { text: string }): Promise<unknown> };
    await expect(client.query({ text: "begin" })).rejects.toThrow("Connection terminated");
    expect(released).toHaveLength(1);
    expect(String(released[0])).toContain("Connection terminated");
  });

  it("leaves healthy clients and other statements alone", async () => {
    const { pool, released } = fakePool(false);
    const client = (await pool.connect()) as { query(config: { text: string }): Promise<unknown> };
    await client.query({ text: "begin" });
    await client.query({ text: "select 1" });
    expect(released).toEqual([]);
  });
});

describe("the data directory lock", () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a second holder while the first lives, names it, and frees the directory on release", async () => {
    dir = await mkdtemp(join(tmpdir(), "mnemo-lock-"));
    const first = await acquireDataDirLock(dir);
    await first.advertise("http://127.0.0.1:8787");
    const refusal = await acquireDataDirLock(dir).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataDirInUseError);
    expect((refusal as Error).message).toContain(`in use by process ${process.pid}`);
    expect((refusal as Error).message).toContain("serving http://127.0.0.1:8787");
    expect(await dataDirHolder(dir)).toMatchObject({ pid: process.pid, url: "http://127.0.0.1:8787" });
    await first.release();
    expect(await dataDirHolder(dir)).toBeUndefined();
    const second = await acquireDataDirLock(dir);
    await second.release();
  });

  it("takes over the lock of a process that is gone, and one it cannot read", async () => {
    dir = await mkdtemp(join(tmpdir(), "mnemo-lock-"));
    await writeFile(
      join(dir, "mnemo.lock"),
      JSON.stringify({ pid: 2 ** 22 + 11, hostname: hostname(), started_at: new Date(0).toISOString() }),
    );
    const taken = await acquireDataDirLock(dir);
    expect(JSON.parse(await readFile(taken.path, "utf8"))).toMatchObject({ pid: process.pid });
    await taken.release();
    await writeFile(join(dir, "mnemo.lock"), "not json");
    await (await acquireDataDirLock(dir)).release();
  });
});

describe("step encryption (AES-256-GCM through WebCrypto)", () => {
  it("round-trips values, never repeats a ciphertext, decrypts with an older key during a rotation, and refuses a foreign key", async () => {
    const { AesGcmEncryption } = await import("../../inngest/step-encryption.js");
    const old = new AesGcmEncryption(["old-key-0123456789abcdef0123456789"]);
    const value = { events: [{ content: "My locker code is 4711." }] };
    const sealed = await old.encrypt(value);
    expect(sealed).not.toContain("4711");
    expect(await old.encrypt(value)).not.toBe(sealed);
    const rotated = new AesGcmEncryption(["new-key-0123456789abcdef0123456789", "old-key-0123456789abcdef0123456789"]);
    expect(await rotated.decrypt(sealed)).toEqual(value);
    expect(await rotated.decrypt(await rotated.encrypt(value))).toEqual(value);
    await expect(new AesGcmEncryption(["someone-elses-key-0123456789abcdef"]).decrypt(sealed)).rejects.toThrow(/could not be decrypted/);
  });
});
