import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";

/** What a leading namespace label names: the app (tenant), the user, or the kind of memory. */
export const NAMESPACE_ROLES = ["app", "user", "kind"] as const;
export type NamespaceRole = (typeof NAMESPACE_ROLES)[number];

/** Kinds that are the pipeline's derived memories, one item per memory (its id is the key): read and forget only. */
export const DERIVED_KINDS = ["episodic", "insight", "trait"] as const;
export type DerivedKind = (typeof DERIVED_KINDS)[number];
export const isDerivedKind = (kind: string): kind is DerivedKind => (DERIVED_KINDS as readonly string[]).includes(kind);

/** The longest fact key the service stores (`POST /v1/memories`). */
export const MAX_MEMORY_KEY_LENGTH = 120;

/** Where a namespace points: an app (or the client's), a user, a kind, and the labels below the kind. */
export interface Address {
  appId: string | undefined;
  userId: string;
  kind: string;
  path: string[];
}

/**
 * Reads a namespace by the layout: its first labels are the layout's roles, in the layout's order,
 * and the labels after them a path inside the kind. `["user", "kind"]` reads `["ana", "profile"]`
 * as user ana's profile facts; `["kind", "user"]` reads LangGraph's `["memories", "ana"]`.
 */
export function addressOf(namespace: readonly string[], layout: readonly NamespaceRole[], appId: string | undefined): Address {
  if (namespace.length < layout.length) {
    throw new InvalidNamespaceError(`namespace ${JSON.stringify(namespace)} is shorter than its layout (${layout.join(", ")})`);
  }
  const at = (role: NamespaceRole) => {
    const index = layout.indexOf(role);
    return index < 0 ? undefined : namespace[index];
  };
  return { appId: at("app") ?? appId, userId: at("user") as string, kind: at("kind") as string, path: namespace.slice(layout.length) };
}

/** The namespace of an address: the inverse of `addressOf`. */
export function namespaceOf(address: Address, layout: readonly NamespaceRole[]): string[] {
  const labels = { app: address.appId ?? "default", user: address.userId, kind: address.kind };
  return [...layout.map((role) => labels[role]), ...address.path];
}

/**
 * The roles a namespace prefix fixes (the labels it has at the layout's positions); the user must be
 * one of them, because the service lists no users. `*` fixes nothing.
 */
export function fixedBy(prefix: readonly string[], layout: readonly NamespaceRole[]): Partial<Record<NamespaceRole, string>> {
  const fixed: Partial<Record<NamespaceRole, string>> = {};
  layout.forEach((role, index) => {
    const label = prefix[index];
    if (label !== undefined && label !== "*") fixed[role] = label;
  });
  return fixed;
}

/**
 * A fact's key for an item: kind, path and item key as segments joined by `:` — `["ana", "profile"]`
 * + `city` is `profile:city`, the key the pipeline's own facts use, so the store reads and writes the
 * same facts. The service lower-cases keys and turns spaces into `_`, and `:` separates segments, so
 * upper-case letters, white space, `:` and `%` are written as `%xx` (UTF-8); nothing else changes.
 */
export function memoryKey(kind: string, path: readonly string[], key: string): string {
  const joined = [kind, ...path, key].map(encodeSegment).join(":");
  if (joined.length > MAX_MEMORY_KEY_LENGTH) {
    throw new InvalidNamespaceError(
      `the fact key for ${JSON.stringify([kind, ...path, key])} is ${joined.length} characters; the service keeps ${MAX_MEMORY_KEY_LENGTH}`,
    );
  }
  return joined;
}

/** The kind, path and item key of a fact's key, or undefined for a key the store cannot name (one segment, or not as the store writes it). */
export function parseMemoryKey(stored: string): { kind: string; path: string[]; key: string } | undefined {
  const segments = stored.split(":").map(decodeSegment);
  if (segments.length < 2 || segments.some((segment) => segment === undefined || segment === "")) return undefined;
  const [kind, ...rest] = segments as string[];
  const key = rest.pop() as string;
  return memoryKey(kind as string, rest, key) === stored ? { kind: kind as string, path: rest, key } : undefined;
}

const utf8 = new TextEncoder();

function encodeSegment(segment: string): string {
  const escaped = (char: string) => Array.from(utf8.encode(char), (byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
  return Array.from(segment, (char) =>
    char === ":" || char === "%" || /\s/u.test(char) || char.toLowerCase() !== char ? escaped(char) : char,
  ).join("");
}

function decodeSegment(segment: string): string | undefined {
  try {
    return segment.replace(/(?:%[0-9a-f]{2})+/g, (escaped) => decodeURIComponent(escaped));
  } catch {
    return undefined;
  }
}
