import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DataDirInUseError } from "./data-dir-lock.js";
import { ownIdentity } from "./process-identity.js";

/**
 * The data directory's lock after a crash in a container: the server is pid 1 in every container
 * and a new container has a new hostname, so neither a pid nor a hostname says whether a holder
 * lives. A lock left behind must not stop the next start; a live holder must still.
 */
let dir: string;
let children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children) child.kill("SIGKILL");
  children = [];
  await rm(dir, { recursive: true, force: true });
});

const lockPath = () => join(dir, "mnemo.lock");

/** `unshare` as root: a new pid namespace (the holder is pid 1) and a new hostname, as in a container. */
const canUnshare = (() => {
  try {
    execFileSync("unshare", ["--pid", "--fork", "--mount-proc", "--uts", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Runs a process that takes the lock in a container-like namespace (pid 1, hostname `container-n`)
 * and holds it; resolves once it holds it, with its pid as it sees it.
 */
async function holdInContainer(name: string): Promise<{ child: ChildProcess; pidInside: number }> {
  const module = resolve("build/src/db/data-dir-lock.js");
  const script = `hostname ${name} && exec node -e 'import("${module}").then(async (m) => { await m.acquireDataDirLock(process.argv[1], { heartbeatMs: 200 }); console.log(process.pid); setInterval(() => {}, 1000); })' ${dir}`;
  const child = spawn("unshare", ["--pid", "--fork", "--kill-child", "--mount-proc", "--uts", "sh", "-c", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const pidInside = await new Promise<number>((done, fail) => {
    child.stdout?.once("data", (chunk: Buffer) => done(Number(chunk.toString().trim())));
    child.once("exit", (code) => fail(new Error(`the holder exited with ${code}`)));
  });
  return { child, pidInside };
}

describe("the data directory lock after a crash", () => {
  it("takes over a lock of our own pid, or of a pid that now names another process", async () => {
    dir = await mkdtemp(join(tmpdir(), "mnemo-lock-"));
    const me = ownIdentity();
    // pid 1 lives here (this machine's init), but it is not the process that wrote this lock.
    for (const pid of [process.pid, 1]) {
      await writeFile(
        lockPath(),
        JSON.stringify({ pid, hostname: hostname(), started_at: "2026-01-01T00:00:00Z", ...me, process_start: "1" }),
      );
      const started = performance.now();
      const lock = await acquireDataDirLock(dir);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(JSON.parse(await readFile(lockPath(), "utf8"))).toMatchObject({ pid: process.pid });
      await lock.release();
    }
  });

  it("takes over a lock from another host or container once it stops changing, and then holds it", async () => {
    dir = await mkdtemp(join(tmpdir(), "mnemo-lock-"));
    // Left by a container that is gone: pid 1, its own hostname, namespace and heartbeat.
    const left = {
      pid: 1,
      hostname: "old-container",
      started_at: "2026-01-01T00:00:00Z",
      boot_id: "b",
      pid_ns: "pid:[1]",
      heartbeat_ms: 200,
      beat: 7,
    };
    await writeFile(lockPath(), JSON.stringify(left));
    const lock = await acquireDataDirLock(dir, { heartbeatMs: 200 });
    // A second taker meets the new holder: refused, naming it.
    const refusal = await acquireDataDirLock(dir).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataDirInUseError);
    await lock.release();
  });

  it("advertises while heartbeats rewrite the file, and neither rewrite fails nor loses the other's change", async () => {
    dir = await mkdtemp(join(tmpdir(), "mnemo-lock-"));
    // A heartbeat every millisecond: advertise is bound to overlap one (a slow start did in CI).
    const lock = await acquireDataDirLock(dir, { heartbeatMs: 1 });
    for (let round = 0; round < 50; round++) {
      await Promise.all([lock.advertise(`http://127.0.0.1:${8000 + round}`), new Promise((done) => setTimeout(done, 1))]);
    }
    await new Promise((done) => setTimeout(done, 20));
    const onDisk = JSON.parse(await readFile(lockPath(), "utf8"));
    expect(onDisk.url).toBe("http://127.0.0.1:8049");
    expect(onDisk.beat).toBeGreaterThan(0);
    await lock.release();
  });

  it.skipIf(!canUnshare)("starts again after the holder, pid 1 in a container, was killed; refuses while it lives", async () => {
    dir = await mkdtemp(join(tmpdir(), "mnemo-lock-"));
    const first = await holdInContainer("container-1");
    expect(first.pidInside).toBe(1);
    // Alive in another pid namespace and under another hostname: this process cannot see it, but it beats.
    await expect(acquireDataDirLock(dir)).rejects.toBeInstanceOf(DataDirInUseError);
    // kill -9 of the container's pid 1: its lock stays behind.
    first.child.kill("SIGKILL");
    await new Promise((done) => first.child.once("exit", done));
    expect(JSON.parse(await readFile(lockPath(), "utf8"))).toMatchObject({ pid: 1, hostname: "container-1" });
    // The replacement container: pid 1 again, a new hostname. It starts.
    const second = await holdInContainer("container-2");
    expect(second.pidInside).toBe(1);
    expect(JSON.parse(await readFile(lockPath(), "utf8"))).toMatchObject({ pid: 1, hostname: "container-2" });
  });
});
