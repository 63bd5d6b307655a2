import { randomUUID } from "node:crypto";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { StartupError } from "../errors.js";
import { ownIdentity, processStart } from "./process-identity.js";

/** What the lock file of a data directory says about the process that holds it. */
export const LockInfoSchema = z.object({
  pid: z.number().int(),
  hostname: z.string(),
  started_at: z.string(),
  /** Where the holder serves HTTP, once it listens: CLI commands send their work there. */
  url: z.string().url().optional(),
  /** Names this holding for good (a pid is reused, and is 1 in every container). */
  instance: z.string().optional(),
  boot_id: z.string().optional(),
  pid_ns: z.string().optional(),
  process_start: z.string().optional(),
  /** How often the holder rewrites the file, and its count of rewrites: a file that stops changing has no holder. */
  heartbeat_ms: z.number().int().positive().optional(),
  beat: z.number().int().optional(),
});
export type LockInfo = z.infer<typeof LockInfoSchema>;

export interface DataDirLock {
  readonly path: string;
  /** Records the URL the holder serves, so other processes can reach it instead of the files. */
  advertise(url: string): Promise<void>;
  release(): Promise<void>;
}

export class DataDirInUseError extends StartupError {
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${holder.pid} on ${holder.hostname} (since ${holder.started_at}${holder.url ? `, serving ${holder.url}` : ""}). ` +
        "PGlite is a single-process database: stop that process first, or send your work to its HTTP API.",
    );
    this.name = "DataDirInUseError";
  }
}

const LOCK_FILE = "mnemo.lock";
const DEFAULT_HEARTBEAT_MS = 2000;
/** How many of its holder's heartbeats a lock may miss before it is judged abandoned. */
const MISSED_BEATS = 2.5;
/** Longest watch of a lock whose holder cannot be checked directly (a heartbeat claimed absurdly slow). */
const MAX_WATCH_MS = 30_000;

/** The instances this process holds: a lock naming one of them is live whatever else it says. */
const heldHere = new Set<string>();

/**
 * Takes the data directory for this process. A lock held by a live process is refused with
 * `DataDirInUseError`; a lock left by a process that is gone (a crash, a kill -9, a container
 * that was replaced) is taken over. The holder is checked directly when it ran in this boot and
 * pid namespace (its pid, and that pid's start time, which a reused pid does not share); a holder
 * in another container or on another machine is watched for a few heartbeats instead: the
 * holder rewrites the file every `heartbeatMs`, so a file that stops changing is abandoned.
 *
 * @example
 * const lock = await acquireDataDirLock("/var/lib/mnemo");
 * await lock.advertise("http://127.0.0.1:8787");
 * await lock.release();
 */
export async function acquireDataDirLock(dataDir: string, options: { heartbeatMs?: number } = {}): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const mine: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    started_at: new Date().toISOString(),
    instance: randomUUID(),
    ...ownIdentity(),
    heartbeat_ms: heartbeatMs,
    beat: 0,
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, JSON.stringify(mine), { flag: "wx" });
      return lockHandle(path, mine);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readLock(path);
    if (holder && (await isAlive(path, holder))) throw new DataDirInUseError(dataDir, holder);
    // Stale: its process is gone. Remove it and try once more (a racing process may win).
    await unlink(path).catch(() => undefined);
  }
  const holder = await readLock(path);
  throw holder ? new DataDirInUseError(dataDir, holder) : new Error(`could not lock ${dataDir}`);
}

/** The holder of a data directory's lock, when a live process holds it. */
export async function dataDirHolder(dataDir: string): Promise<LockInfo | undefined> {
  const path = join(dataDir, LOCK_FILE);
  const holder = await readLock(path);
  return holder && (await isAlive(path, holder)) ? holder : undefined;
}

function lockHandle(path: string, info: LockInfo): DataDirLock {
  const instance = info.instance as string;
  heldHere.add(instance);
  let current = info;
  let released = false;
  /** Rewrites the file whole (a reader never sees half of it), while it is still ours. */
  const writeWhole = async (change: (held: LockInfo) => LockInfo) => {
    const onDisk = await readLock(path);
    if (released || onDisk?.instance !== instance) return;
    const next = change(current);
    const temporary = `${path}.${instance}.tmp`;
    await writeFile(temporary, JSON.stringify(next));
    await rename(temporary, path);
    current = next;
  };
  // One rewrite at a time: a heartbeat and an advertise share the temporary file, and the
  // second rename of two overlapping ones would find it already moved.
  let rewrites: Promise<void> = Promise.resolve();
  let pending = 0;
  const rewrite = (change: (held: LockInfo) => LockInfo): Promise<void> => {
    pending++;
    const next = rewrites.then(() => writeWhole(change)).finally(() => pending--);
    rewrites = next.catch(() => undefined);
    return next;
  };
  const heartbeat = setInterval(() => {
    // A beat while a rewrite is still under way is skipped, not queued: on a slow disk queued
    // beats would pile up without end, and an advertise would wait behind all of them.
    if (pending > 0) return;
    void rewrite((held) => ({ ...held, beat: (held.beat ?? 0) + 1 })).catch(() => undefined);
  }, info.heartbeat_ms ?? DEFAULT_HEARTBEAT_MS);
  heartbeat.unref();
  return {
    path,
    async advertise(url) {
      await rewrite((held) => ({ ...held, url }));
    },
    async release() {
      if (released) return;
      clearInterval(heartbeat);
      await rewrites;
      // Only our own lock: never remove one another process took over.
      const onDisk = await readLock(path);
      released = true;
      heldHere.delete(instance);
      if (onDisk?.instance === instance) await unlink(path).catch(() => undefined);
    },
  };
}

async function readLock(path: string): Promise<LockInfo | undefined> {
  try {
    const parsed = LockInfoSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
    // An unreadable lock file is treated as stale.
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function isAlive(path: string, holder: LockInfo): Promise<boolean> {
  if (holder.instance && heldHere.has(holder.instance)) return true;
  const verdict = checkDirectly(holder);
  if (verdict !== "unknown") return verdict === "alive";
  // Another container or machine: alive only if it still rewrites the file.
  const watchMs = Math.min(MAX_WATCH_MS, MISSED_BEATS * (holder.heartbeat_ms ?? DEFAULT_HEARTBEAT_MS));
  await new Promise((resolve) => setTimeout(resolve, watchMs));
  const later = await readLock(path);
  return later !== undefined && JSON.stringify(later) !== JSON.stringify(holder);
}

/** Whether the holder's process can be looked up from here, and what that says. */
function checkDirectly(holder: LockInfo): "alive" | "gone" | "unknown" {
  const me = ownIdentity();
  const sameSpace =
    holder.boot_id !== undefined && holder.pid_ns !== undefined
      ? holder.boot_id === me.boot_id && holder.pid_ns === me.pid_ns
      : // A lock from before identities were recorded: its hostname is all there is.
        holder.hostname === hostname() && holder.heartbeat_ms === undefined;
  if (!sameSpace) return "unknown";
  // Our own pid, in a lock this process does not hold: an earlier process's (a container's pid 1).
  if (holder.pid === process.pid) return "gone";
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: alive, owned by another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return "gone";
  }
  // The pid lives, but a different process may have it now.
  const start = processStart(holder.pid);
  if (holder.process_start !== undefined && start !== undefined && start !== holder.process_start) return "gone";
  return "alive";
}
