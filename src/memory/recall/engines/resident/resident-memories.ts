import type { Database } from "../../../../db/database.js";
import { MEMORY_TYPES, type MemoryType } from "../../../../db/schema/index.js";
import { userKey } from "../../../user-key.js";
import { changesAfter, type MemoryChange, pruneDeletions } from "./change-log.js";
import { decodeHalfvecHex } from "./half-float.js";
import type { VisibleAt } from "./resident-slots.js";
import { type TermHit, UserTerms } from "./user-terms.js";
import { type ResidentHit, UserVectors } from "./user-vectors.js";

/** Rows read per statement while catching up, so other requests get the embedded database in between. */
const CHANGES_PER_READ = 5_000;

export interface ResidentMemoriesOptions {
  /** The embedding model whose vectors are kept, and their dimension. */
  model: string;
  dimensions: number;
  /** Most bytes all users' copies may take together; the least recently queried users go first. */
  maxBytes: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

interface UserEntry {
  vectors: UserVectors;
  terms: UserTerms;
  /** The change log's position this copy has read up to. */
  seen: bigint;
  /** Until the first full read is done, recall takes the SQL path. */
  ready: boolean;
  /** The rows after the first page are being read in the background: recall does not wait for them. */
  loadingRest: boolean;
  /** Reads of the change log, one at a time: each recall queues one and waits for it. */
  reading: Promise<void>;
  /** The highest ticket (`ResidentMemories.ticket`) a finished read of the change log started after. */
  served: number;
  lastUsed: number;
}

/**
 * An embedded deployment's recall index: a copy of each queried user's memories in this process
 * (their vectors, and the words each holds), kept current through the change log before every use
 * (a read of the rows changed since, which is one index probe when nothing changed). Replaces, on
 * PGlite, a Hamming scan over every row of the user (slow at 100K memories, since those rows are
 * wide) with the exact re-rank that read 1,600 of them, and the full-text ranking (at 100K, most of
 * it counting the corpus and reading each common word's matches).
 *
 * A user's first query reads the first page of its rows; a user with more goes on loading in the
 * background (seconds at 100K memories) while its queries take the SQL path. A user whose copy
 * alone would outgrow `maxBytes` is left to the SQL path for good.
 */
export class ResidentMemories {
  private readonly users = new Map<string, UserEntry>();
  private readonly tooLarge = new Set<string>();
  /** Tickets drawn so far (`ticket`). */
  private tickets = 0;
  private readonly typeCodes = new Map<string, number>(MEMORY_TYPES.map((type, index) => [type, index]));

  constructor(private readonly options: ResidentMemoriesOptions) {}

  get model(): string {
    return this.options.model;
  }

  /**
   * The `limit` nearest memories of the user that are visible at `now` (and of `types`), found
   * among `candidates` Hamming neighbours; undefined when this user has no complete copy (still
   * loading, or too large), and then the caller takes the SQL path.
   */
  async nearest(
    db: Database,
    query: { appId: string; userId: string; values: number[]; now: Date; types?: MemoryType[]; readAfter?: number },
    candidates: number,
    limit: number,
  ): Promise<ResidentHit[] | undefined> {
    if (query.values.length !== this.options.dimensions) return undefined;
    const entry = await this.current(db, query, query.readAfter);
    return entry?.vectors.nearest({
      unit: unitVector(query.values),
      ...this.visibleAt(query),
      candidates,
      limit,
    });
  }

  /**
   * The user's `limit` best memories by BM25 for the query's words (`lexemes`, as Postgres parses
   * them) among those visible at `now` (and of `types`), each matching `minCoverage` of the query's
   * idf mass; undefined when this user has no complete copy.
   */
  async matching(
    db: Database,
    query: { appId: string; userId: string; lexemes: string[]; now: Date; types?: MemoryType[]; readAfter?: number },
    minCoverage: number,
    limit: number,
  ): Promise<TermHit[] | undefined> {
    const entry = await this.current(db, query, query.readAfter);
    return entry?.terms.rank({
      lexemes: query.lexemes,
      ...this.visibleAt(query),
      minCoverage,
      limit,
    });
  }

  /**
   * A place in the order of recalls: a read of the change log that starts after it was drawn has
   * every write committed before. A recall draws one as it begins and hands it to both arms.
   */
  ticket(): number {
    return ++this.tickets;
  }

  /** The user's copy, caught up with the change log; undefined while it loads, or when it is too large. */
  private async current(db: Database, scope: { appId: string; userId: string }, readAfter?: number): Promise<UserEntry | undefined> {
    const key = userKey(scope);
    if (this.tooLarge.has(key)) return undefined;
    let entry = this.users.get(key);
    if (!entry) {
      const created: UserEntry = {
        vectors: new UserVectors(this.options.dimensions),
        terms: new UserTerms(),
        seen: 0n,
        ready: false,
        loadingRest: false,
        reading: Promise.resolve(),
        served: 0,
        lastUsed: 0,
      };
      created.reading = this.load(db, scope, created);
      this.users.set(key, created);
      entry = created;
    }
    entry.lastUsed = Date.now();
    // A large user's rest is still loading: this recall takes the SQL path now rather than wait for it.
    if (entry.loadingRest) return undefined;
    // An earlier read's failure failed the recall that queued it (or the first page is being read).
    await entry.reading.catch(() => undefined);
    if (!entry.ready) return undefined;
    const current = entry;
    // A read that starts after the ticket was drawn sees every write committed before the recall
    // began: the recall's two arms share one read (on PGlite a round trip costs more in the wire
    // protocol than in the query).
    const ticket = readAfter ?? this.ticket();
    // A failed read (a dropped connection) fails this recall, not every later one.
    current.reading = current.reading
      .catch(() => undefined)
      .then(async () => {
        if (current.served >= ticket) return;
        const covers = this.tickets;
        await this.readChanges(db, scope, current, Number.POSITIVE_INFINITY);
        current.served = Math.max(current.served, covers);
      });
    await current.reading;
    return this.withinBudget(key, current) ? current : undefined;
  }

  private visibleAt(query: { now: Date; types?: MemoryType[] }): VisibleAt {
    const nowMs = query.now.getTime();
    return query.types ? { nowMs, types: new Set(query.types.map((type) => this.typeCodes.get(type) as number)) } : { nowMs };
  }

  /** Resolves once the user's copy is complete (or given up); for the bench, which measures the steady state. */
  async loaded(scope: { appId: string; userId: string }): Promise<boolean> {
    for (;;) {
      const entry = this.users.get(userKey(scope));
      if (!entry) return false;
      if (entry.ready) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Users, memories and bytes held, for the bench and tests. */
  usage(): { users: number; memories: number; bytes: number } {
    let memories = 0;
    let bytes = 0;
    for (const entry of this.users.values()) {
      memories += entry.terms.count;
      bytes += entryBytes(entry);
    }
    return { users: this.users.size, memories, bytes };
  }

  /** Reads the first page; a user with more rows goes on in the background. Never rejects: a failed load is forgotten and retried. */
  private async load(db: Database, scope: { appId: string; userId: string }, entry: UserEntry): Promise<void> {
    const key = userKey(scope);
    const forget = (error: unknown) => {
      if (this.users.get(key) === entry) this.users.delete(key);
      this.options.log?.("loading a user's memories failed; their recall reads the database until a later query loads them", {
        app_id: scope.appId,
        user_id: scope.userId,
        error,
      });
    };
    try {
      if (await this.readChanges(db, scope, entry, 1)) {
        entry.ready = this.withinBudget(key, entry);
        return;
      }
    } catch (error) {
      return forget(error);
    }
    entry.loadingRest = true;
    entry.reading = this.readChanges(db, scope, entry, Number.POSITIVE_INFINITY).then(
      () => {
        entry.loadingRest = false;
        entry.ready = this.withinBudget(key, entry);
      },
      (error: unknown) => {
        entry.loadingRest = false;
        forget(error);
      },
    );
  }

  /** Applies up to `pages` pages of changes; true once the copy has caught up with the log. */
  private async readChanges(db: Database, scope: { appId: string; userId: string }, entry: UserEntry, pages: number): Promise<boolean> {
    for (let page = 0; page < pages; page++) {
      const changes = await changesAfter(db, scope, this.options.model, entry.seen, CHANGES_PER_READ);
      for (const change of changes) this.apply(entry, change);
      const last = changes.at(-1);
      if (last) entry.seen = BigInt(last.change_seq);
      if (changes.some((change) => change.deleted)) await pruneDeletions(db, this.readByAll());
      if (changes.length < CHANGES_PER_READ) return true;
      // A user growing past the budget stops here; `withinBudget` gives the copy up.
      if (entryBytes(entry) > this.options.maxBytes) return false;
    }
    return false;
  }

  /** Whether the user's copy fits the budget, after dropping other users' copies; a copy too large alone is given up. */
  private withinBudget(key: string, entry: UserEntry): boolean {
    if (entryBytes(entry) > this.options.maxBytes) {
      this.users.delete(key);
      this.tooLarge.add(key);
      this.options.log?.("a user's memories exceed RESIDENT_MEMORIES_MAX_MB; their recall reads the database", {
        user: key.replace("\u0000", "/"),
        memories: entry.terms.count,
      });
      return false;
    }
    this.evictBeyondBudget(key);
    return true;
  }

  /** The change log's position every copy has read up to. */
  private readByAll(): bigint | undefined {
    let least: bigint | undefined;
    for (const entry of this.users.values()) if (least === undefined || entry.seen < least) least = entry.seen;
    return least;
  }

  private apply(entry: UserEntry, change: MemoryChange): void {
    if (change.deleted || !change.live || change.created_at === null) {
      entry.vectors.remove(change.id);
      entry.terms.remove(change.id);
      return;
    }
    const row = {
      id: change.id,
      sessionId: change.session_id,
      turnSeq: change.turn_seq,
      createdAt: change.created_at,
      createdMs: Number(change.created_ms),
    };
    const visibility = {
      type: this.typeCodes.get(change.type ?? "") ?? 255,
      validMs: Number(change.valid_ms),
      invalidMs: change.invalid_ms === null ? Number.POSITIVE_INFINITY : Number(change.invalid_ms),
    };
    entry.terms.put(row, visibility, change.lexemes ?? []);
    if (change.vector === null) entry.vectors.remove(change.id);
    else entry.vectors.put(row, visibility, decodeHalfvecHex(change.vector));
  }

  /** Drops the least recently queried users' copies (never `keep`'s) until all fit `maxBytes`. */
  private evictBeyondBudget(keep: string): void {
    let total = this.usage().bytes;
    if (total <= this.options.maxBytes) return;
    const byAge = [...this.users.entries()].filter(([key]) => key !== keep).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, entry] of byAge) {
      total -= entryBytes(entry);
      this.users.delete(key);
      if (total <= this.options.maxBytes) return;
    }
  }
}

const entryBytes = (entry: UserEntry): number => entry.vectors.bytes + entry.terms.bytes;

function unitVector(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return Float32Array.from(values, (value) => (norm > 0 ? value / norm : 0));
}
