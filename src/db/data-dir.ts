import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { StartupError } from "../errors.js";

/**
 * Makes sure the embedded database's directory exists and this process can write in it, or says
 * why not in one line naming DATA_DIR. Directories are created one level at a time: Node's
 * recursive `mkdir` never returns for a path under `/proc` (it retries the same ENOENT forever),
 * which left `DATA_DIR=/proc/nope` hanging without a word.
 *
 * @example
 * await ensureDataDir("./.data");
 */
export async function ensureDataDir(dataDir: string): Promise<void> {
  try {
    await createDirectory(resolve(dataDir));
    const probe = resolve(dataDir, `.write-probe-${process.pid}`);
    await writeFile(probe, "");
    await rm(probe, { force: true });
  } catch (error) {
    throw new StartupError(`DATA_DIR ${dataDir}: ${fileSystemCause(error)}`, { cause: error });
  }
}

async function createDirectory(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = dirname(path);
    // Create the parent, then this directory once more; a second ENOENT means it cannot exist here.
    if (code !== "ENOENT" || parent === path) throw error;
    await createDirectory(parent);
    await mkdir(path).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== "EEXIST") throw again;
    });
  }
}

/** What went wrong with a file-system call, for a person: the cause in words and its code. */
function fileSystemCause(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const causes: Record<string, string> = {
    ENOENT: "the directory cannot be created there",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "the file system is read-only",
    ENOTDIR: "a part of the path is a file, not a directory",
    ENOSPC: "no space left on the device",
    EEXIST: "exists and is not a directory",
  };
  return code ? `${causes[code] ?? "not usable"} (${code})` : String(error);
}
