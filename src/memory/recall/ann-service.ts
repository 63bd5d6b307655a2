import { sql } from "drizzle-orm";
import { type Database, type DatabaseHandle, queryRows } from "../../db/database.js";
import { type AnnIndex, type AnnTarget, annIndexName, ensureAnnIndex, indexableDimensions } from "./ann-index.js";
import { dropUserAnnIndex, reconcileUserAnnIndexes, type UserAnnPolicy, type UserScope } from "./user-ann-indexes.js";

type Log = (message: string, fields?: Record<string, unknown>) => void;

export interface AnnServiceOptions {
  /** A connection of its own for each build (a pool of one, closed afterwards), so `memory` reaches the build. */
  connect: () => Promise<Pick<DatabaseHandle, "db" | "close">>;
  /** `maintenance_work_mem` for builds. */
  memory?: string;
  /** Per-user indexes for the largest users, checked every `intervalMs`; absent: none. */
  users?: UserAnnPolicy & { intervalMs: number };
}

/** The deployment's vector indexes as the service runs them: which one recall may use, and their upkeep. */
export interface AnnService extends AnnIndex {
  forgetUser(scope: UserScope): Promise<void>;
  /** Brings the per-user indexes in line now (the periodic check does the same); resolves when done. */
  reconcileUsers(): Promise<void>;
  /** Stops the periodic check; a build in flight is abandoned with its connection and redone by the next start. */
  stop(): Promise<void>;
}

/**
 * Held by the one process building indexes on a database, on its build connection (session-level:
 * `CREATE INDEX CONCURRENTLY` cannot run in a transaction). Two concurrent builds on `memories`
 * wait for each other's snapshots (expression and partial indexes, which a concurrent build cannot
 * ignore), and two replicas reconciling at the same moment deadlocked; now the second skips its turn.
 */
const BUILD_LOCK = 0x6d6e656d6f01n;
/** As text, cast in SQL: drivers differ in how they send a BigInt parameter. */
const BUILD_LOCK_KEY = BUILD_LOCK.toString();

/**
 * How soon a process that found no valid index of its model (another process building it, a failed
 * build) checks again, at most: a look at the catalog, while recall takes the slower path.
 */
const MODEL_INDEX_RETRY_MS = 5_000;

/**
 * The configured model's index. While the model has no vectors yet (a new deployment, a new
 * model) the build takes milliseconds and is finished before the service starts serving: a build
 * still running in the background could deadlock with whatever the first users do to the table
 * (`ANALYZE` takes the same lock, and a concurrent build waits for every older transaction). Over
 * existing vectors it builds in the background: until it is valid, recall takes the
 * binary-quantised path (correct, slower at scale); once it is, the indexed one. An index another
 * replica is building, or a build that failed, is checked again every 5 s (or `users.intervalMs`
 * if sooner) until it is valid. Then, every `users.intervalMs`, the largest users' own indexes are
 * reconciled. One process at a time builds (`BUILD_LOCK`); another skips its turn.
 */
export async function startAnnService(db: Database, target: AnnTarget, log: Log, options: AnnServiceOptions): Promise<AnnService> {
  let ready = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** The backend of the build connection in use, so that stopping can cancel a build that may run for minutes. */
  let builderPid: number | undefined;
  const memory = options.memory ? { memory: options.memory } : {};
  /**
   * Runs `work` on a build connection holding `BUILD_LOCK`, one at a time in this process too (two
   * builds would compete for the same memory); undefined when another process holds the lock.
   */
  let queue: Promise<unknown> = Promise.resolve();
  let skipLogged = false;
  const onBuildConnection = <T>(work: (builder: Database) => Promise<T>): Promise<T | undefined> => {
    const next = queue.then(async () => {
      if (stopped) throw new Error("the vector index service is stopped");
      const connection = await options.connect();
      try {
        const [held] = await queryRows<{ pid: number; locked: boolean }>(
          connection.db,
          sql`SELECT pg_backend_pid() AS pid, pg_try_advisory_lock(${BUILD_LOCK_KEY}::bigint) AS locked`,
        );
        if (!held?.locked) {
          if (!skipLogged) log("vector index upkeep skipped while another process builds; checked again later");
          skipLogged = true;
          return undefined;
        }
        skipLogged = false;
        builderPid = held.pid;
        // Closing the connection releases the lock, however the work ends.
        return await work(connection.db);
      } finally {
        builderPid = undefined;
        await connection.close();
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const started = Date.now();
  let missingLogged = false;
  const ensureModelIndex = async () => {
    const valid = await onBuildConnection((builder) => ensureAnnIndex(builder, target, memory));
    if (valid === undefined) return;
    ready = valid;
    if (valid) log("vector index ready", { index: annIndexName(target), ms: Date.now() - started });
    else if (!missingLogged)
      log("no valid vector index for this embedding model yet", { model: target.model, dimensions: target.dimensions });
    missingLogged = !valid;
  };
  const reconcileUsers = async () => {
    const users = options.users;
    if (!users || stopped || !ready) return;
    const report = await onBuildConnection((builder) => reconcileUserAnnIndexes(builder, target, users, memory));
    if (report && (report.built.length > 0 || report.wordsBuilt.length > 0 || report.dropped.length > 0 || report.pending > 0))
      log("per-user vector and word indexes reconciled", { ...report });
  };
  const check = () =>
    (ready ? reconcileUsers() : ensureModelIndex().then(reconcileUsers)).catch((error: unknown) =>
      log("vector index upkeep failed; retried at the next check", { error }),
    );
  const schedule = () => {
    const usersInterval = options.users?.intervalMs;
    // A model pgvector cannot index is never checked again.
    const retry = indexableDimensions(target.dimensions)
      ? Math.min(MODEL_INDEX_RETRY_MS, usersInterval ?? MODEL_INDEX_RETRY_MS)
      : undefined;
    const delay = ready ? usersInterval : retry;
    if (stopped || delay === undefined) return;
    timer = setTimeout(() => void check().then(schedule), delay);
    timer.unref();
  };

  const building = check().then(schedule);
  // Unreachable database: the build in the background logs its own failure; start-up goes on.
  const noVectorsYet = await queryRows(db, sql`SELECT 1 FROM memories WHERE embedding_model = ${target.model} LIMIT 1`).then(
    (rows) => rows.length === 0,
    () => false,
  );
  if (noVectorsYet) await building;
  return {
    dimensionsFor: (model) => (ready && model === target.model ? target.dimensions : undefined),
    forgetUser: (scope) => dropUserAnnIndex(db, target, scope),
    reconcileUsers,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // A cancelled concurrent build leaves an invalid index, which the next start drops and builds again.
      if (builderPid !== undefined) await db.execute(sql`SELECT pg_cancel_backend(${builderPid})`).catch(() => undefined);
      await queue;
    },
  };
}
