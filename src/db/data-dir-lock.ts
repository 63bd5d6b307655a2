import { readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { StartupError } from "../errors.js";

/** What the lock file of a data directory says about the process that holds it. */
export const LockInfoSchema = z.object({
  pid: z.number().int(),
  hostname: z.string(),
  started_at: z.string(),
  /** Where the holder serves HTTP, once it listens: CLI commands send their work there. */
  url: z.string().url().optional(),
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

/**
 * Takes the data directory for this process. A lock held by a live process is refused with
 * `DataDirInUseError`; a lock left by a process that is gone (a crash, a kill -9) is taken over.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, hostname: hostname(), started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, JSON.stringify(mine), { flag: "wx" });
      return lockHandle(path, mine);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readLock(path);
    if (holder && isAlive(holder)) throw new DataDirInUseError(dataDir, holder);
    // Stale: its process is gone. Remove it and try once more (a racing process may win).
    await unlink(path).catch(() => undefined);
  }
  const holder = await readLock(path);
  throw holder ? new DataDirInUseError(dataDir, holder) : new Error(`could not lock ${dataDir}`);
}

/** The holder of a data directory's lock, when a live process holds it. */
export async function dataDirHolder(dataDir: string): Promise<LockInfo | undefined> {
  const holder = await readLock(join(dataDir, LOCK_FILE));
  return holder && isAlive(holder) ? holder : undefined;
}

function lockHandle(path: string, info: LockInfo): DataDirLock {
  let released = false;
  return {
    path,
    async advertise(url) {
      if (!released) await writeFile(path, JSON.stringify({ ...info, url }));
    },
    async release() {
      if (released) return;
      released = true;
      // Only our own lock: never remove one another process took over.
      const current = await readLock(path);
      if (current?.pid === info.pid && current.started_at === info.started_at) await unlink(path).catch(() => undefined);
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

function isAlive(holder: LockInfo): boolean {
  // Another machine's process (a shared volume) cannot be checked: assume it is alive.
  if (holder.hostname !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
