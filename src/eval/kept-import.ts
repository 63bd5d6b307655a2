import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { issuesLine } from "../util/issues-line.js";

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
  id: z.string().min(1),
  userId: z.string().min(1),
  lastTurnAt: z.iso.datetime().transform((at) => new Date(at)),
  history: z.string().min(1).optional(),
});
/** `import.json`: the embedder whose vectors the import holds, and its histories. */
const ManifestSchema = z.object({ embedder: z.string().min(1), histories: z.array(HistorySchema) });

/** The embedded database's directory inside a kept import's directory. */
export const keptDataDir = (dir: string) => join(dir, "data");

/** What to run to learn which embedder made a kept import's vectors. */
const FIND_OUT = "SELECT DISTINCT embedding_model FROM memories on its data says which";

/**
 * The histories a kept import holds, by id (empty when the directory holds nothing yet): an
 * evaluation of the same histories answers them again without importing, and an interrupted
 * import goes on with the histories it lacks. Read before any service starts on the import, and
 * only by the embedder that made its vectors (`embedder`, the model id the run embeds with): a
 * question embedded by another model finds nothing among them, recall would run on words alone
 * under the new model's name, and the service's sweep would start re-embedding the import. Refused
 * with one line naming the directory: another embedder; data without a manifest; a manifest that
 * names no embedder (written before evaluations recorded theirs) or that does not parse.
 *
 * @example
 * const kept = await readKeptImport("/tmp/lme", "use-lite-512"); // Map { "9bbe84a2" => { id, userId, lastTurnAt } }
 */
export async function readKeptImport(dir: string, embedder: string): Promise<Map<string, KeptHistory>> {
  const text = await readFile(join(dir, MANIFEST), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new Error(`--import-dir ${dir}: ${MANIFEST} cannot be read: ${error.message}`);
  });
  if (text === undefined) {
    if (existsSync(keptDataDir(dir)))
      throw new Error(`--import-dir ${dir} holds data but no ${MANIFEST}, so its embedder is not known: import into another directory`);
    return new Map();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`--import-dir ${dir}: ${MANIFEST} is not JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(json))
    throw new Error(
      `--import-dir ${dir}: ${MANIFEST} names no embedder (written before evaluations recorded theirs): import into another directory, or write it as {"embedder": "<model id>", "histories": [the list it holds]} (${FIND_OUT})`,
    );
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new Error(`--import-dir ${dir}: ${MANIFEST}: ${issuesLine(parsed.error)}`);
  if (parsed.data.embedder !== embedder)
    throw new Error(
      `--import-dir ${dir} holds vectors of ${parsed.data.embedder}, and this run embeds with ${embedder} (the provider settings of the shell): import into another directory`,
    );
  return new Map(parsed.data.histories.map((history) => [history.id, history]));
}

/**
 * Records what an import directory holds and the embedder that made it: before a service first
 * starts on it, and after each history, so that an interrupted import keeps what it did and says
 * by which embedder.
 */
export async function writeKeptImport(dir: string, embedder: string, histories: Iterable<KeptHistory>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const manifest = { embedder, histories: [...histories].map((history) => ({ ...history, lastTurnAt: history.lastTurnAt.toISOString() })) };
  await writeFile(join(dir, MANIFEST), JSON.stringify(manifest));
}

/**
 * The ids of the kept histories said inside another history than `historyOf` gives them (the
 * history a set places each case in); a kept history that records none is not compared.
 *
 * @example
 * misplacedHistories(kept, (id) => "9bbe84a2"); // ["case-a"] when case-a was said inside caf03d32
 */
export function misplacedHistories(kept: ReadonlyMap<string, KeptHistory>, historyOf: (id: string) => string | undefined): string[] {
  return [...kept.values()]
    .filter((history) => history.history !== undefined && historyOf(history.id) !== undefined && history.history !== historyOf(history.id))
    .map((history) => history.id);
}

/** A copy of a kept import's database to answer on (answering records access, which ranking reads). */
export async function copyKeptData(dir: string, to: string): Promise<void> {
  // The lock file belongs to the closed importer: a copy starts unlocked.
  await cp(keptDataDir(dir), to, { recursive: true, filter: (source) => basename(source) !== "mnemo.lock" });
}
