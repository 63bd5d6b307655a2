import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { sql } from "drizzle-orm";
import { type Database, queryRows } from "../db/database.js";

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

/**
 * Refuses a kept import whose vectors another embedder made (`model`: the one this run embeds
 * with): its questions would be embedded by one model and its memories by another, whose vectors
 * are never compared, so recall would run on words alone and report it as the model's. Fails
 * with one line naming the directory and both models; an import holding no vectors yet passes.
 *
 * @example
 * await checkKeptEmbedder(runtime.database.db, runtime.providers.embedder.model, "/tmp/lme"); // throws when /tmp/lme was embedded by use-lite-512 and this run by Gemini
 */
export async function checkKeptEmbedder(db: Pick<Database, "execute">, model: string, dir: string): Promise<void> {
  const rows = await queryRows<{ model: string }>(
    db,
    sql`SELECT DISTINCT embedding_model AS model FROM memories WHERE embedding_model IS NOT NULL ORDER BY 1`,
  );
  const others = rows.map((row) => row.model).filter((kept) => kept !== model);
  if (others.length > 0)
    throw new Error(
      `--import-dir ${dir} was embedded by ${others.join(", ")}, and this run embeds with ${model} (EMBEDDING_PROVIDER): import into another directory`,
    );
}
