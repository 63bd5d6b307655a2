import { readFileSync, readlinkSync } from "node:fs";

/**
 * What tells one process apart from every other on a Linux machine, beyond its pid (which is
 * reused, and is 1 in every container): the boot it runs in, its pid namespace, and the time it
 * started (in clock ticks since boot). Fields Linux's `/proc` does not give are absent.
 */
export interface ProcessIdentity {
  /** `/proc/sys/kernel/random/boot_id`: new at every boot of the kernel. */
  boot_id?: string;
  /** The pid namespace, e.g. `pid:[4026531836]`: each container has its own. */
  pid_ns?: string;
  /** Field 22 of `/proc/<pid>/stat`: with the pid and the boot, names one process for good. */
  process_start?: string;
}

/**
 * This process's identity.
 *
 * @example
 * const me = ownIdentity(); // { boot_id: "71b6…", pid_ns: "pid:[4026531836]", process_start: "4242" }
 */
export function ownIdentity(): ProcessIdentity {
  const bootId = readOrUndefined(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  const pidNs = readOrUndefined(() => readlinkSync("/proc/self/ns/pid"));
  const start = processStart(process.pid);
  return { ...(bootId ? { boot_id: bootId } : {}), ...(pidNs ? { pid_ns: pidNs } : {}), ...(start ? { process_start: start } : {}) };
}

/** When process `pid` of this pid namespace started (field 22 of its stat), or undefined when there is none. */
export function processStart(pid: number): string | undefined {
  return readOrUndefined(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  });
}

function readOrUndefined(read: () => string | undefined): string | undefined {
  try {
    return read() || undefined;
  } catch {
    return undefined;
  }
}
