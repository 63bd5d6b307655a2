import { isDeepStrictEqual } from "node:util";

/** What a memory asserts, as a rebuild preview compares it. */
export interface MemoryState {
  id: string;
  type: string;
  subtype: string | null;
  key: string | null;
  content: string;
  value: unknown;
  traitStage: string | null;
  sessionId: string | null;
  metadata: Record<string, unknown>;
  contentHash: string;
}

export interface MemoryDiff {
  added: MemoryState[];
  removed: MemoryState[];
  changed: { before: MemoryState; after: MemoryState }[];
  unchanged: number;
}

/**
 * The same memory on both sides: a fact or trait by its key, a turn by its event, a summary by its
 * chunk; anything else (insights, API notes) by its content, so a reworded insight reads as one
 * removed and one added.
 */
function identity(memory: MemoryState): string {
  if (memory.key) return `${memory.type}|${memory.key}`;
  if (memory.subtype === "turn") return `turn|${memory.sessionId}|${String(memory.metadata["seq"])}`;
  if (memory.subtype === "summary") return `summary|${memory.sessionId}|${String(memory.metadata["from_seq"])}`;
  return `${memory.type}|${memory.subtype ?? ""}|${memory.contentHash}`;
}

const sameAssertion = (a: MemoryState, b: MemoryState) =>
  a.content === b.content && a.traitStage === b.traitStage && isDeepStrictEqual(a.value ?? null, b.value ?? null);

/**
 * The difference between what is stored and what a derivation produced: memories only in the
 * derivation are added, only in the store removed, the same identity asserting something else changed.
 */
export function diffMemories(stored: MemoryState[], derived: MemoryState[]): MemoryDiff {
  const groups = new Map<string, { stored: MemoryState[]; derived: MemoryState[] }>();
  const group = (memory: MemoryState) => {
    const id = identity(memory);
    let found = groups.get(id);
    if (!found) {
      found = { stored: [], derived: [] };
      groups.set(id, found);
    }
    return found;
  };
  for (const memory of stored) group(memory).stored.push(memory);
  for (const memory of derived) group(memory).derived.push(memory);

  const diff: MemoryDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const { stored: before, derived: after } of groups.values()) {
    const unmatched = [...after];
    const gone: MemoryState[] = [];
    for (const memory of before) {
      const twin = unmatched.findIndex((candidate) => sameAssertion(memory, candidate));
      if (twin === -1) gone.push(memory);
      else {
        unmatched.splice(twin, 1);
        diff.unchanged++;
      }
    }
    // What is left on both sides under one identity is the same memory saying something else.
    while (gone.length > 0 && unmatched.length > 0)
      diff.changed.push({ before: gone.shift() as MemoryState, after: unmatched.shift() as MemoryState });
    diff.removed.push(...gone);
    diff.added.push(...unmatched);
  }
  return diff;
}
