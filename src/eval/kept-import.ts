import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";

/** One imported history of a kept import: its id (a question's, a case's), the user it was imported as, its last turn. */
export interface KeptHistory {
  id: string;
  userId: string;
  lastTurnAt: Date;
  /** The LongMemEval history it was said inside, where a set places its cases in histories (eval:changes). */
  history?: string;
}

const MANIFEST = "import.json";

const HistorySchema = z.object({
  id: z.string(),
  userId: z.string(),
  lastTurnAt: z.coerce.date(),
  history: z.string().optional(),
});
/** `import.json`: the embedder whose vectors the import holds, and its histories. */
const ManifestSchema = z.object({ embedder: z.string().min(1), histories: z.array(HistorySchema) });

/** The embedded database's directory inside a kept import's directory. */
export const keptDataDir = (dir: string) => join(dir, "data");

/**
 * The histories a kept import holds, by id (empty when the directory holds none yet): an
 * evaluation of the same histories answers them again without importing, and an interrupted
 * import goes on with the histories it lacks. Read before any service starts on the import, and
 * only by the embedder that made its vectors (`embedder`, the model id the run embeds with): a
 * question embedded by another model finds nothing among them, and recall would run on words alone
 * under the new model's name. Another embedder, or a manifest that names none (written before
 * evaluations named theirs), is refused with one line naming the directory.
 *
 * @example
 * const kept = await readKeptImport("/tmp/lme", "use-lite-512"); // Map { "9bbe84a2" => { id, userId, lastTurnAt } }
 */
export async function readKeptImport(dir: string, embedder: string): Promise<Map<string, KeptHistory>> {
  const text = await readFile(join(dir, MANIFEST), "utf8").catch(() => undefined);
  if (text === undefined) return new Map();
  const parsed = ManifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(
      `--import-dir ${dir}: ${MANIFEST} names no embedder (written before evaluations recorded theirs): import again into another directory, or, if it was made offline, write it as {"embedder": "use-lite-512", "histories": [the list it holds]}`,
    );
  if (parsed.data.embedder !== embedder)
    throw new Error(
      `--import-dir ${dir} holds vectors of ${parsed.data.embedder}, and this run embeds with ${embedder} (the provider settings of the shell): import into another directory`,
    );
  return new Map(parsed.data.histories.map((history) => [history.id, history]));
}

/**
 * Records what an import directory holds and the embedder that made it, after each history, so
 * that an interrupted import keeps what it did.
 */
export async function writeKeptImport(dir: string, embedder: string, histories: Iterable<KeptHistory>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const manifest = { embedder, histories: [...histories].map((history) => ({ ...history, lastTurnAt: history.lastTurnAt.toISOString() })) };
  await writeFile(join(dir, MANIFEST), JSON.stringify(manifest));
}

/** A copy of a kept import's database to answer on (answering records access, which ranking reads). */
export async function copyKeptData(dir: string, to: string): Promise<void> {
  // The lock file belongs to the closed importer: a copy starts unlocked.
  await cp(keptDataDir(dir), to, { recursive: true, filter: (source) => basename(source) !== "mnemo.lock" });
}
