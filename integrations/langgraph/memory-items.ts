import type { Item } from "@langchain/langgraph-checkpoint";
import type { MemoryClient } from "../../client/index.js";
import { okJson } from "../expect-ok.js";
import { DERIVED_KINDS, isDerivedKind, type NamespaceRole, namespaceOf, parseMemoryKey } from "./namespaces.js";

/** A memory as the API answers it (`GET /v1/memories`, `POST /v1/memories/expand`). */
export type MemoryJson = Awaited<ReturnType<typeof listPage>>["memories"][number];

/** The largest page `GET /v1/memories` answers. */
const PAGE = 500;

/** Whose memories, in which app (undefined: the client's). */
export interface Owner {
  userId: string;
  appId: string | undefined;
}

const ownerQuery = (owner: Owner) => ({ user_id: owner.userId, ...(owner.appId ? { app_id: owner.appId } : {}) });

function listPage(client: MemoryClient, query: Record<string, string>) {
  return okJson(client.v1.memories.$get({ query: query as { user_id: string } }));
}

/**
 * The user's current memories (of one type, or all), newest first, page after page: each page
 * ends where the last one's oldest `valid_at` was, and memories seen already are skipped.
 */
export async function* currentMemories(client: MemoryClient, owner: Owner, type?: string): AsyncGenerator<MemoryJson> {
  const seen = new Set<string>();
  let to: string | undefined;
  for (;;) {
    const { memories } = await listPage(client, {
      ...ownerQuery(owner),
      ...(type ? { type } : {}),
      limit: String(PAGE),
      ...(to ? { to } : {}),
    });
    const fresh = memories.filter((memory) => !seen.has(memory.id));
    for (const memory of fresh) {
      seen.add(memory.id);
      yield memory;
    }
    const oldest = memories.at(-1);
    if (memories.length < PAGE || !oldest) return;
    if (fresh.length === 0) throw new Error(`more than ${PAGE} memories of user ${owner.userId} share one valid_at: they cannot be paged`);
    to = new Date(Date.parse(oldest.valid_at) + 1).toISOString();
  }
}

/** Every version of a fact key, newest first (current, superseded and deleted ones). */
export async function versionsOf(client: MemoryClient, owner: Owner, key: string): Promise<MemoryJson[]> {
  const query = { ...ownerQuery(owner), type: "semantic", key, include_expired: "true", limit: String(PAGE) };
  return (await listPage(client, query)).memories;
}

/** The version a key holds now: neither expired (replaced, deleted) nor ended in the world (retracted). */
export const currentVersion = (versions: MemoryJson[]) =>
  versions.find((memory) => memory.expired_at === null && memory.invalid_at === null);

/** When the key's current run of versions began: the first version the current one supersedes, transitively. */
export function firstWritten(current: MemoryJson, versions: MemoryJson[]): string {
  let first = current;
  for (let step = 0; step < versions.length; step += 1) {
    const before = versions.find((memory) => memory.superseded_by === first.id);
    if (!before) break;
    first = before;
  }
  return first.created_at;
}

/** Where a memory sits in the store: a fact under a key the store can name, or a derived memory by id. */
export function placeOf(memory: MemoryJson): { kind: string; path: string[]; key: string } | undefined {
  if (memory.type === "semantic") {
    const parsed = memory.key ? parseMemoryKey(memory.key) : undefined;
    return parsed && !isDerivedKind(parsed.kind) ? parsed : undefined;
  }
  return (DERIVED_KINDS as readonly string[]).includes(memory.type) ? { kind: memory.type, path: [], key: memory.id } : undefined;
}

/**
 * A memory as a LangGraph item: a fact's value as stored when it is an object (what `put` stored),
 * else `{content, value}`; a derived memory's words and kind. `updatedAt` is when this version was
 * written; `createdAt` when the key was first written (`firstWrittenAt`), else the same.
 */
export function itemOf(memory: MemoryJson, layout: readonly NamespaceRole[], firstWrittenAt?: string): Item | undefined {
  const place = placeOf(memory);
  if (!place) return undefined;
  const namespace = namespaceOf({ appId: memory.app_id, userId: memory.user_id, kind: place.kind, path: place.path }, layout);
  const value =
    memory.type === "semantic"
      ? isPlainObject(memory.value)
        ? memory.value
        : { content: memory.content, value: memory.value }
      : { content: memory.content, subtype: memory.subtype, importance: memory.importance, valid_at: memory.valid_at };
  return {
    namespace,
    key: place.key,
    value,
    createdAt: new Date(firstWrittenAt ?? memory.created_at),
    updatedAt: new Date(memory.created_at),
  };
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
