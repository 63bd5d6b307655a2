import { sql } from "drizzle-orm";
import { type Database, type DatabaseHandle, queryRows } from "../../db/database.js";
import { type AnnIndex, type AnnTarget, annIndexName, ensureAnnIndex } from "./ann-index.js";
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
 * The configured model's index. While the model has no vectors yet (a new deployment, a new
 * model) the build takes milliseconds and is finished before the service starts serving: a build
 * still running in the background could deadlock with whatever the first users do to the table
 * (`ANALYZE` takes the same lock, and a concurrent build waits for every older transaction). Over
 * existing vectors it builds in the background: until it is valid, recall takes the
 * binary-quantised path (correct, slower at scale); once it is, the indexed one. After it, and
 * then every `users.intervalMs`, the largest users' own indexes are reconciled.
 */
export async function startAnnService(db: Database, target: AnnTarget, log: Log, options: AnnServiceOptions): Promise<AnnService> {
  let ready = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** The backend of the build connection in use, so that stopping can cancel a build that may run for minutes. */
  let builderPid: number | undefined;
  const memory = options.memory ? { memory: options.memory } : {};
  /** Runs `work` on a build connection, one at a time (two builds would compete for the same memory). */
  let queue: Promise<unknown> = Promise.resolve();
  const onBuildConnection = <T>(work: (builder: Database) => Promise<T>): Promise<T> => {
    const next = queue.then(async () => {
      if (stopped) throw new Error("the vector index service is stopped");
      const connection = await options.connect();
      try {
        [{ pid: builderPid }] = (await queryRows<{ pid: number }>(connection.db, sql`SELECT pg_backend_pid() AS pid`)) as [{ pid: number }];
        return await work(connection.db);
      } finally {
        builderPid = undefined;
        await connection.close();
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const reconcileUsers = async () => {
    const users = options.users;
    if (!users || stopped || !ready) return;
    const report = await onBuildConnection((builder) => reconcileUserAnnIndexes(builder, target, users, memory));
    if (report.built.length > 0 || report.wordsBuilt.length > 0 || report.dropped.length > 0 || report.pending > 0)
      log("per-user vector and word indexes reconciled", { ...report });
  };
  const checkUsers = () =>
    reconcileUsers().catch((error: unknown) =>
      log("per-user vector index upkeep failed; retried at the next check", { error: String(error) }),
    );

  const started = Date.now();
  const building = onBuildConnection((builder) => ensureAnnIndex(builder, target, memory)).then(
    (valid) => {
      ready = valid;
      if (valid) log("vector index ready", { index: annIndexName(target), ms: Date.now() - started });
      else log("no vector index for this embedding model", { model: target.model, dimensions: target.dimensions });
      if (!valid || !options.users || stopped) return;
      void checkUsers();
      timer = setInterval(checkUsers, options.users.intervalMs);
      timer.unref();
    },
    (error: unknown) => log("vector index build failed; recall stays on the binary-quantised path", { error: String(error) }),
  );
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
      clearInterval(timer);
      // A cancelled concurrent build leaves an invalid index, which the next start drops and builds again.
      if (builderPid !== undefined) await db.execute(sql`SELECT pg_cancel_backend(${builderPid})`).catch(() => undefined);
      await queue;
    },
  };
}
