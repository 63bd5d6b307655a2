import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { apiKeys } from "../db/schema/index.js";
import { sha256, toHex } from "../util/hash.js";

/** Who a request acts for: one app (its key), an operator across apps, or nobody (auth off). */
export type Principal = { kind: "app"; appId: string; keyId: string } | { kind: "admin" } | { kind: "anonymous" };

const KEY_PREFIX = "mk_";

/**
 * Creates a key for an app and returns it; only its hash is stored, so this is the one time the
 * key can be read.
 *
 * @example
 * const { key } = await createApiKey(db, { appId: "acme", name: "production" });
 */
export async function createApiKey(
  db: Database,
  input: { appId: string; name: string },
): Promise<{ id: string; key: string; prefix: string }> {
  const secret = toHex(crypto.getRandomValues(new Uint8Array(32)));
  const key = `${KEY_PREFIX}${secret}`;
  const id = crypto.randomUUID();
  const prefix = keyPrefix(key);
  await db.insert(apiKeys).values({ id, appId: input.appId, name: input.name, keyHash: await sha256(key), prefix });
  return { id, key, prefix };
}

export async function listApiKeys(db: Database, appId?: string) {
  return db
    .select({
      id: apiKeys.id,
      appId: apiKeys.appId,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(appId ? eq(apiKeys.appId, appId) : undefined)
    .orderBy(apiKeys.createdAt);
}

/** Revokes a key; true when a live key was revoked. */
export async function revokeApiKey(db: Database, id: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/** The public start of a key (`mk_` and 7 hex digits), as stored beside its hash and listed. */
export function keyPrefix(key: string): string {
  return key.slice(0, 10);
}

/**
 * Resolves presented keys to principals. Valid keys are remembered for `cacheMs` so the hot path
 * (appends) does not pay a lookup per request; a revocation therefore takes effect within that time.
 *
 * @example
 * const resolve = createKeyResolver({ cacheMs: 60_000 });
 * const principal = await resolve(db, "mk_…");
 * resolve.forget(keyId); // after revoking it
 */
export function createKeyResolver(options: { adminKeyHash?: string; cacheMs: number }) {
  const cache = new Map<string, { principal: Principal; until: number }>();
  // The database comes per call: on Workers every request has its own connection.
  const resolve = async (db: Database, presented: string): Promise<Principal | undefined> => {
    const hash = await sha256(presented);
    if (options.adminKeyHash && hash === options.adminKeyHash) return { kind: "admin" };
    const cached = cache.get(hash);
    if (cached && cached.until > Date.now()) return cached.principal;
    const [row] = await db
      .select({ id: apiKeys.id, appId: apiKeys.appId })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)));
    if (!row) {
      cache.delete(hash);
      return undefined;
    }
    const principal: Principal = { kind: "app", appId: row.appId, keyId: row.id };
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, { principal, until: Date.now() + options.cacheMs });
    return principal;
  };
  /** Drops a revoked key from this process's memory, so its next request is refused. */
  const forget = (keyId: string): void => {
    for (const [hash, entry] of cache) if (entry.principal.kind === "app" && entry.principal.keyId === keyId) cache.delete(hash);
  };
  return Object.assign(resolve, { forget });
}

export type KeyResolver = ReturnType<typeof createKeyResolver>;
