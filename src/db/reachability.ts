import { sql } from "drizzle-orm";
import { StartupError } from "../errors.js";
import { describeConnectionFailure } from "./connection-errors.js";
import type { DatabaseHandle } from "./database.js";

/**
 * A round trip to a server database before the service starts serving, so an unreachable host,
 * a wrong password or a missing database stops start-up with one line naming the host and the
 * cause instead of failing every request (or the first query's stack). Nothing to check embedded.
 *
 * @example
 * await assertReachable(handle, "postgres://app:secret@db:5432/mnemo");
 */
export async function assertReachable(handle: DatabaseHandle, url: string | undefined): Promise<void> {
  if (handle.kind === "pglite" || !url) return;
  try {
    await handle.db.execute(sql`SELECT 1`);
  } catch (error) {
    throw new StartupError(`DATABASE_URL ${whereTo(url)}: ${describeConnectionFailure(error)}`, { cause: error });
  }
}

/** user@host:port/database of a URL, without its password or parameters. */
export function whereTo(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : "";
    return `${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return "(unparseable URL)";
  }
}
