import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";

/** One imported history of a kept import: its id (a question's, a case's), the user it was imported as, its last turn. */
export interface KeptHistory {
  id: string;
  userId: string;
  lastTurnAt: Date;
}

const MANIFEST = "import.json";

/** The embedded database's directory inside a kept import's directory. */
export const keptDataDir = (dir: string) => join(dir, "data");

/**
 * The histories a kept import holds, by id (empty when the directory holds none yet): an
 * evaluation of the same histories answers them again without importing, and an interrupted
 * import goes on with the histories it lacks.
 *
 * @example
 * const kept = await readKeptImport("/tmp/lme"); // Map { "9bbe84a2" => { id, userId, lastTurnAt } }
 */
export async function readKeptImport(dir: string): Promise<Map<string, KeptHistory>> {
  const text = await readFile(join(dir, MANIFEST), "utf8").catch(() => undefined);
  const entries = text === undefined ? [] : (JSON.parse(text) as { id: string; userId: string; lastTurnAt: string }[]);
  return new Map(entries.map((entry) => [entry.id, { id: entry.id, userId: entry.userId, lastTurnAt: new Date(entry.lastTurnAt) }]));
}

/** Records what an import directory holds, after each history, so that an interrupted import keeps what it did. */
export async function writeKeptImport(dir: string, histories: Iterable<KeptHistory>): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, MANIFEST),
    JSON.stringify([...histories].map((history) => ({ ...history, lastTurnAt: history.lastTurnAt.toISOString() }))),
  );
}

/** A copy of a kept import's database to answer on (answering records access, which ranking reads). */
export async function copyKeptData(dir: string, to: string): Promise<void> {
  // The lock file belongs to the closed importer: a copy starts unlocked.
  await cp(keptDataDir(dir), to, { recursive: true, filter: (source) => basename(source) !== "mnemo.lock" });
}
