/** The part of a pg-compatible pool (node-postgres, Neon) this guard wraps. */
interface GuardedPool {
  connect(...args: unknown[]): unknown;
}

interface PoolClientLike {
  query(...args: unknown[]): unknown;
  release(error?: Error | boolean): void;
}

const guarded = new WeakSet<object>();

/**
 * drizzle-orm 0.45 checks a client out for `db.transaction()` and sends BEGIN before the
 * try/finally that releases it (drizzle-team/drizzle-orm#6241, unfixed in 0.45.x): when BEGIN
 * fails — the connection died while the client sat idle, exactly what a failover does — the
 * client is never returned, and after `max` such failures every request waits for a connection
 * that never comes and `pool.end()` hangs. This releases the client, with the error so the pool
 * destroys it, when its BEGIN fails. Remove once drizzle releases it itself.
 */
export function releaseClientOnFailedBegin<Pool extends GuardedPool>(pool: Pool): Pool {
  const connect = pool.connect.bind(pool);
  pool.connect = (...args: unknown[]) => {
    const callback = args[0];
    if (typeof callback === "function") {
      // pg-pool's own `query()` uses the callback form; it releases its clients itself.
      return connect(callback);
    }
    return (connect() as Promise<PoolClientLike>).then((client) => {
      guard(client);
      return client;
    });
  };
  return pool;
}

function guard(client: PoolClientLike): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  const query = client.query.bind(client);
  client.query = (...args: unknown[]) => {
    const result = query(...args);
    const config = args[0];
    const text = typeof config === "string" ? config : (config as { text?: unknown } | undefined)?.text;
    if (typeof text === "string" && /^\s*begin\b/i.test(text) && result instanceof Promise) {
      return result.catch((error: unknown) => {
        client.release(error instanceof Error ? error : new Error(String(error)));
        throw error;
      });
    }
    return result;
  };
}
