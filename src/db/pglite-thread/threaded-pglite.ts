import { Worker } from "node:worker_threads";
import type { ParserOptions, Results, RowMode } from "@electric-sql/pglite";
import { z } from "zod";

/** What PGlite's `query` takes that the service passes: the row shape and the caller's own parsers. */
export interface ThreadedQueryOptions {
  rowMode?: RowMode;
  parsers?: ParserOptions;
}

/** The statements of one transaction, on the connection the transaction holds. */
export interface ThreadedTransaction {
  query<T>(sql: string, params?: unknown[], options?: ThreadedQueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
}

const ReplySchema = z.union([
  z.object({ id: z.number(), result: z.unknown() }),
  z.object({ id: z.number(), error: z.looseObject({ message: z.string(), name: z.string().optional() }) }),
]);

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** An error from the database thread, with the fields Postgres gave it (`code`, `detail`, `constraint` …). */
function restoredError(fields: { message: string; name?: string | undefined }): Error {
  const error = Object.assign(new Error(fields.message), fields);
  error.name = fields.name ?? "Error";
  return error;
}

/**
 * SQLSTATE 57P02 (crash shutdown) for a database that can no longer answer: the requests that
 * meet it are answered 503 (db/connection-errors.ts) and /readyz reports it.
 */
function unavailable(message: string): Error {
  return Object.assign(new Error(message), { code: "57P02" });
}

/**
 * The results as the caller's parsers want them: the thread leaves the values of those types as
 * the text Postgres sent (functions cannot cross threads), and they are parsed here.
 */
function parsed<T>(results: Results<T>, options: ThreadedQueryOptions | undefined): Results<T> {
  const parsers = options?.parsers;
  if (!parsers || results.rows.length === 0) return results;
  const columns = results.fields
    .map((field, index) => ({ index, name: field.name, parse: parsers[field.dataTypeID] }))
    .filter((column) => column.parse !== undefined);
  if (columns.length === 0) return results;
  for (const row of results.rows as Record<string | number, unknown>[]) {
    for (const column of columns) {
      const key = options?.rowMode === "array" ? column.index : column.name;
      const value = row[key];
      if (typeof value === "string") row[key] = (column.parse as (text: string) => unknown)(value);
    }
  }
  return results;
}

/**
 * PGlite in a worker thread of its own (`pglite-worker.mjs`), behind the part of PGlite's
 * interface the service uses (`query`, `exec`, `transaction`, `close`): Postgres' WebAssembly and
 * the parsing of its wire protocol no longer run on the event loop, which only posts a message per
 * statement and receives its rows. One connection still: statements run one at a time in the
 * thread, a transaction holds it until it ends (the connection gate orders who goes next).
 *
 * PGlite's own `PGliteWorker` is made for browsers: it elects a leader among tabs with the Web
 * Locks API (`navigator.locks`), which Node 20 does not have.
 *
 * If the thread dies, every statement in flight and after fails with SQLSTATE 57P02 (answered
 * 503, and /readyz reports it) and `onLost` hears it once; the thread is not restarted, since a
 * transaction it held is gone and the process' state above it may count on it.
 *
 * @example
 * const client = await ThreadedPglite.open("./.data");
 * const { rows } = await client.query("SELECT 1 AS one");
 */
export class ThreadedPglite {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Why no statement can run any more: the thread stopped, or `close` was called. */
  private stopped: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    onLost: (error: Error) => void,
  ) {
    worker.on("message", (message: unknown) => {
      const reply = ReplySchema.safeParse(message);
      if (!reply.success) return;
      const waiting = this.pending.get(reply.data.id);
      if (!waiting) return;
      this.pending.delete(reply.data.id);
      if ("error" in reply.data) waiting.reject(restoredError(reply.data.error));
      else waiting.resolve(reply.data.result);
    });
    const lost = (cause: unknown) => {
      if (!this.stopped) {
        this.stopped = unavailable(`the embedded database thread stopped (${cause instanceof Error ? cause.message : String(cause)})`);
        onLost(this.stopped);
      }
      const failed = this.stopped;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const call of waiting) call.reject(failed);
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(`exit code ${code}`));
  }

  /**
   * Starts the thread and opens the database in `dataDir` ("memory://…" keeps it in memory) with
   * pgvector and btree_gin. `onLost` hears once if the thread stops without `close`.
   */
  static async open(dataDir: string, onLost: (error: Error) => void = () => undefined): Promise<ThreadedPglite> {
    const worker = new Worker(new URL("./pglite-worker.mjs", import.meta.url), { workerData: { dataDir } });
    worker.unref();
    const client = new ThreadedPglite(worker, onLost);
    try {
      await client.call("open", {});
    } catch (error) {
      client.stopped ??= unavailable("the embedded database did not open");
      await worker.terminate();
      throw error;
    }
    return client;
  }

  query<T>(sql: string, params?: unknown[], options?: ThreadedQueryOptions): Promise<Results<T>> {
    return this.statement<T>(undefined, sql, params, options);
  }

  exec(sql: string): Promise<Results[]> {
    return this.call("exec", { sql }) as Promise<Results[]>;
  }

  /**
   * Runs `work` in a transaction: committed when it resolves, rolled back when it throws (and the
   * error rethrown). The transaction holds the database's one connection until then.
   */
  async transaction<T>(work: (tx: ThreadedTransaction) => Promise<T>): Promise<T> {
    const transaction = (await this.call("begin", {})) as number;
    const tx: ThreadedTransaction = {
      query: <R>(sql: string, params?: unknown[], options?: ThreadedQueryOptions) => this.statement<R>(transaction, sql, params, options),
      exec: (sql: string) => this.call("exec", { sql, transaction }) as Promise<Results[]>,
    };
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      await this.call("end", { transaction, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.call("end", { transaction, commit: true });
    return result;
  }

  /**
   * Closes the database once the statements sent before have run (PGlite finishes them and
   * flushes its files), then ends the thread. Later calls fail as unavailable.
   */
  async close(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.call("close", {});
    } finally {
      this.stopped ??= unavailable("the embedded database is closed");
      await this.worker.terminate();
    }
  }

  private async statement<T>(
    transaction: number | undefined,
    sql: string,
    params: unknown[] | undefined,
    options: ThreadedQueryOptions | undefined,
  ): Promise<Results<T>> {
    const types = Object.keys(options?.parsers ?? {}).map(Number);
    const results = (await this.call("query", {
      sql,
      params: params ?? [],
      types,
      rowMode: options?.rowMode ?? "object",
      ...(transaction === undefined ? {} : { transaction }),
    })) as Results<T>;
    return parsed(results, options);
  }

  private call(op: string, payload: Record<string, unknown>): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // The thread keeps the process alive only while a statement is waiting on it, as PGlite on
      // the main thread would: a process that forgets to close the database still exits.
      if (this.pending.size === 0) this.worker.ref();
      const settle = () => {
        if (this.pending.size === 0) this.worker.unref();
      };
      this.pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      try {
        this.worker.postMessage({ id, op, ...payload });
      } catch (error) {
        // A parameter that cannot be copied to the thread (a function, a symbol): this call fails alone.
        const waiting = this.pending.get(id);
        this.pending.delete(id);
        waiting?.reject(error as Error);
      }
    });
  }
}
