import type { RecalledMemory } from "../memory/recall/hybrid-recall.js";
import type { LaterStatement, StatementAnchor } from "../memory/recall/later-statements.js";
import { type StatementReading, saysSomethingOfSpeaker } from "../memory/recall/speaker-statements.js";
import type { PackResult } from "./pack.js";
import { memoryIdsIn } from "./schemas.js";

/**
 * A turn of the window that what was said since may qualify: one in which the user says something
 * of themselves (`saysSomethingOfSpeaker`), or one of the asker's own statements read first, which
 * may state it of a thing of their life ("The flat has a balcony"). A question asked of the
 * assistant states nothing that can change.
 */
const isStatedTurn = (memory: RecalledMemory, reading: StatementReading, readFirst: ReadonlySet<string>) =>
  memory.subtype === "turn" && memory.role === "user" && (readFirst.has(memory.id) || saysSomethingOfSpeaker(memory.content, reading));

/**
 * The statements of the window's candidates to look past, each with the moment past which the
 * user's later turns are looked at (when it was last said): `count`, as many as the share of the
 * budget pays for, and every one of the asker's own statements read first (`readFirst`) besides.
 * The first facts, wherever they rank, take their places first, then the user's statements in rank
 * order (`isStatedTurn`, read until enough are found: each reading may run the tagger). Facts come
 * first and apart because the window packs them in their own section ahead of the turns: a fact
 * far down the ranking is still served, and a fact is what the window asserts, so it is the one to
 * read beside what came later. The asker's own statements are read first because the question is
 * about how the asker stands now: each is read beside what came later, not only those the facts
 * leave room for.
 */
export function statementsToLookPast(
  recalled: readonly RecalledMemory[],
  count: number,
  reading: StatementReading,
  readFirst: ReadonlySet<string> = new Set(),
): StatementAnchor[] {
  const chosen = recalled.filter((memory) => memory.type === "semantic").slice(0, count);
  for (const memory of recalled) {
    if (chosen.length >= count) break;
    if (isStatedTurn(memory, reading, readFirst)) chosen.push(memory);
  }
  const looked = new Set(chosen.map((memory) => memory.id));
  for (const memory of recalled) if (readFirst.has(memory.id) && !looked.has(memory.id)) chosen.push(memory);
  return chosen.map((memory) => ({ id: memory.id, after: memory.lastConfirmedAt }));
}

/**
 * Each statement with the later statement to show beside it, and the candidates without the
 * turns now shown beside a statement. A later turn that recall ranked ahead of a turn is already
 * read first: that turn keeps no note, and the later one its place. A fact keeps its note either
 * way: it is packed in a section of its own, which the later turn's rank among the memories does
 * not reach. One of the asker's own statements read first (`readFirst`) that keeps a note of its
 * own is no other turn's note (`apart`): shown as one, it would hide its own. Notes are weighed
 * newest first, so in a chain of own statements each gives up its note only to one that keeps its
 * own, and nothing is hidden.
 */
export function besideLaterStatements(
  recalled: readonly RecalledMemory[],
  later: ReadonlyMap<string, readonly LaterStatement[]>,
  readFirst: ReadonlySet<string>,
): { candidates: RecalledMemory[]; laterOf: Map<string, LaterStatement>; apart: Set<string> } {
  const position = new Map(recalled.map((memory, index) => [memory.id, index]));
  const laterOf = new Map<string, LaterStatement>();
  const attached = new Set<string>();
  for (const [index, memory] of recalled.entries()) {
    const best = later.get(memory.id)?.[0];
    if (!best || attached.has(best.memoryId)) continue;
    const ranked = position.get(best.memoryId);
    if (ranked !== undefined && ranked < index && memory.type !== "semantic") continue;
    laterOf.set(memory.id, best);
    attached.add(best.memoryId);
  }
  const apart = new Set<string>();
  const turnsNewestNoteFirst = [...laterOf]
    .filter(([statement]) => recalled[position.get(statement) as number]?.type !== "semantic")
    .sort(([, a], [, b]) => b.at.getTime() - a.at.getTime());
  for (const [statement, note] of turnsNewestNoteFirst) {
    if (!readFirst.has(note.memoryId) || !laterOf.has(note.memoryId)) continue;
    laterOf.delete(statement);
    attached.delete(note.memoryId);
    apart.add(note.memoryId);
  }
  return { candidates: recalled.filter((memory) => !attached.has(memory.id)), laterOf, apart };
}

/**
 * How many times a window is packed again after statements with a later note were left out. Each
 * packing may leave out another statement with the same later turn; past the last, that turn is
 * lost with it.
 */
const MAX_NOTE_REPACKS = 2;

/** The memories a packing shows, or leaves out because the window's history holds them. */
const shownIn = (packed: PackResult) => new Set([...memoryIdsIn(packed.sections), ...packed.repeated]);

/** A packing's shown memories (`shownIn`) and the later statements beside its statements. */
interface ShownWindow {
  shown: ReadonlySet<string>;
  laterOf: ReadonlyMap<string, LaterStatement>;
}

/**
 * Whether `after` shows every later statement `before` showed beside a statement (beside one of
 * its own statements, or as an item), and each statement both show with a note keeps one.
 */
function keepsLaterStatements(before: ShownWindow, after: ShownWindow): boolean {
  const besideAfter = new Set([...after.laterOf].filter(([statement]) => after.shown.has(statement)).map(([, note]) => note.memoryId));
  return [...before.laterOf].every(
    ([statement, note]) =>
      !before.shown.has(statement) ||
      ((after.shown.has(note.memoryId) || besideAfter.has(note.memoryId)) && (!after.shown.has(statement) || after.laterOf.has(statement))),
  );
}

/** A packed window, the candidates it was packed from and the later statements beside them. */
export interface PackedBeside {
  packed: PackResult;
  recalled: RecalledMemory[];
  laterOf: Map<string, LaterStatement>;
  /** Ids of the statements the budget left out with their later statement beside them, not offered again. */
  leftWithNote: Set<string>;
}

/**
 * `pack` of the candidates with each statement's later statement beside it
 * (`besideLaterStatements`). A later turn that recall ranked among the candidates on its own is
 * taken out of them to be shown beside its statement; when the budget then leaves that statement
 * out, the later turn would be lost with it. Such a statement is not offered again (without its
 * note it would show the old state alone), and its later turn goes back to its own ranked place,
 * or beside the next statement it is nearest to, for a packing again (`MAX_NOTE_REPACKS` at
 * most). A packing again that would cost a later statement the window showed beside a statement,
 * or a shown statement its note, is not taken: the window stays as it was. A statement the
 * history already holds counts as shown: its note's events are in the history with it.
 * `readFirst` are the asker's own statements the window reads first: one kept apart from another's
 * note (`besideLaterStatements`) that the budget leaves out is dropped too, and so becomes that
 * note again.
 */
export function packBesideLaterStatements(
  offered: readonly RecalledMemory[],
  later: ReadonlyMap<string, readonly LaterStatement[]>,
  pack: (candidates: RecalledMemory[], notes: Map<string, LaterStatement>) => PackResult,
  readFirst: ReadonlySet<string>,
): PackedBeside {
  const dropped = new Set<string>();
  let remaining = [...offered];
  let beside = besideLaterStatements(remaining, later, readFirst);
  let packed = pack(beside.candidates, beside.laterOf);
  let shown = shownIn(packed);
  for (let round = 0; round < MAX_NOTE_REPACKS; round++) {
    const stillOffered = new Set(remaining.map((memory) => memory.id));
    // A statement that is itself shown as another's note counts as left out too: its own note is never shown.
    const left = [...beside.laterOf]
      .filter(([statement, note]) => !shown.has(statement) && stillOffered.has(note.memoryId))
      .map(([statement]) => statement);
    // An own statement kept apart that the budget left out goes back to being the note it was.
    const apartLeft = [...beside.apart].filter((statement) => !shown.has(statement));
    if (left.length === 0 && apartLeft.length === 0) break;
    const nowDropped = new Set([...dropped, ...left, ...apartLeft]);
    const nowRemaining = remaining.filter((memory) => !nowDropped.has(memory.id));
    const nowBeside = besideLaterStatements(
      nowRemaining,
      new Map([...later].filter(([statement]) => !nowDropped.has(statement))),
      readFirst,
    );
    const nowPacked = pack(nowBeside.candidates, nowBeside.laterOf);
    const nowShown = shownIn(nowPacked);
    // Packing again must cost no later statement the window showed, and no shown statement its note.
    if (!keepsLaterStatements({ shown, laterOf: beside.laterOf }, { shown: nowShown, laterOf: nowBeside.laterOf })) break;
    for (const id of nowDropped) dropped.add(id);
    remaining = nowRemaining;
    beside = nowBeside;
    packed = nowPacked;
    shown = nowShown;
  }
  // A dropped statement may be shown yet, as the later statement of another.
  const notes = new Set([...beside.laterOf.values()].map((note) => note.memoryId));
  return {
    packed,
    recalled: beside.candidates,
    laterOf: beside.laterOf,
    leftWithNote: new Set([...dropped].filter((id) => !notes.has(id))),
  };
}
