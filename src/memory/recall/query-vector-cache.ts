import { userKey } from "../user-key.js";

/**
 * The vectors of a user's recent queries. An agent asks the same thing more than once: every step
 * of a tool-calling loop assembles a context window for the same user message, a search and a
 * context window often share their query, and clients retry. Embedding a query is a third of a
 * context window's time offline and a network round trip on Gemini; a hit skips it.
 *
 * Concurrent misses on one query share one embedding, and a failed embedding is not kept. Entries
 * are least-recently-used beyond `capacity` and expire after `ttlMs`; an erasure drops the user's
 * at once in this process (`forgetUser`), and another process's copy expires within `ttlMs`.
 */
export class QueryVectorCache {
  private readonly entries = new Map<string, { vector: Promise<number[]>; expiresAt: number; user: string }>();

  constructor(
    private readonly options: { capacity: number; ttlMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** The query's vector from the cache, or from `embed` (once, however many ask at the same time). */
  vectorFor(scope: { appId: string; userId: string }, model: string, query: string, embed: () => Promise<number[]>): Promise<number[]> {
    if (this.options.capacity === 0) return embed();
    const user = userKey(scope);
    const key = JSON.stringify([user, model, query]);
    const now = this.now();
    const cached = this.entries.get(key);
    this.entries.delete(key);
    if (cached && cached.expiresAt > now) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      this.entries.set(key, cached);
      return cached.vector;
    }
    const vector = embed();
    const entry = { vector, expiresAt: now + this.options.ttlMs, user };
    this.entries.set(key, entry);
    vector.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.options.capacity) break;
      this.entries.delete(oldest);
    }
    return vector;
  }

  forgetUser(scope: { appId: string; userId: string }): void {
    const user = userKey(scope);
    for (const [key, entry] of this.entries) if (entry.user === user) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
