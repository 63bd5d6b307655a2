import { AsyncLocalStorage } from "node:async_hooks";

/** Who waits on the embedded connection: a request on its way to an answer, or background work (the pipeline, upkeep). */
export type WorkClass = "request" | "background";

const workClass = new AsyncLocalStorage<WorkClass>();

/**
 * Runs `work` as background work: its statements on the embedded connection go after requests'
 * (durable runs, decay, vacuum, access and usage writes after a response).
 *
 * @example
 * await asBackgroundWork(() => driveRun(run));
 */
export function asBackgroundWork<T>(work: () => T): T {
  return workClass.run("background", work);
}

/** The class of the work in progress: `request` unless `asBackgroundWork` said otherwise. */
export function currentWorkClass(): WorkClass {
  return workClass.getStore() ?? "request";
}

export interface GateStats {
  /** Grants so far, the total and longest wait before each (ms). */
  waited: Record<WorkClass, { grants: number; totalMs: number; maxMs: number }>;
  /** Waiting now. */
  waiting: Record<WorkClass, number>;
}

export interface ConnectionGate {
  /** Runs `work` once the connection is this caller's, by the class of the work in progress. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Inside a transaction, between its statements: a turn of the event loop once a slice has passed. */
  turnIfDue(): Promise<void> | undefined;
  stats(): GateStats;
}

export interface ConnectionGateOptions {
  /** Background work that has waited this long goes next even while requests wait: the pipeline slows, never stops. */
  maxBackgroundWaitMs?: number;
  /**
   * Longest run of grants handed on without a turn of the event loop: statements and their results
   * chain through promises, and without a turn no timer fires and no socket is read meanwhile.
   */
  sliceMs?: number;
  /** Called with each grant's wait (ms), for a histogram. */
  onGrant?: (waitMs: number, work: WorkClass) => void;
  now?: () => number;
}

interface Waiter {
  enqueuedAt: number;
  grant: () => void;
}

/**
 * One connection, two queues: statements and transactions of requests go before background
 * work's, which goes anyway once it has waited `maxBackgroundWaitMs`. PGlite is one connection
 * in one thread; its own queue is first come, first served, so a burst of pipeline statements
 * delayed every request queued behind it. The gate also hands the connection on through a
 * `setImmediate` once `sliceMs` has passed without a turn of the event loop, so timers fire and
 * sockets are read between the statements of a busy queue.
 *
 * @example
 * const gate = createConnectionGate();
 * const rows = await gate.run(() => client.query("SELECT 1"));
 */
export function createConnectionGate(options: ConnectionGateOptions = {}): ConnectionGate {
  const now = options.now ?? (() => performance.now());
  const maxBackgroundWaitMs = options.maxBackgroundWaitMs ?? 250;
  const sliceMs = options.sliceMs ?? 10;
  const queues: Record<WorkClass, Waiter[]> = { request: [], background: [] };
  const waited: GateStats["waited"] = {
    request: { grants: 0, totalMs: 0, maxMs: 0 },
    background: { grants: 0, totalMs: 0, maxMs: 0 },
  };
  let busy = false;
  let turnStartedAt = now();
  let turnPending = false;

  const markTurn = () => {
    turnStartedAt = now();
  };

  const next = (): Waiter | undefined => {
    const background = queues.background[0];
    if (background && (queues.request.length === 0 || now() - background.enqueuedAt >= maxBackgroundWaitMs)) {
      return queues.background.shift();
    }
    return queues.request.shift() ?? queues.background.shift();
  };

  const handOn = () => {
    if (queues.request.length === 0 && queues.background.length === 0) {
      busy = false;
      return;
    }
    if (now() - turnStartedAt >= sliceMs) {
      // A turn of the event loop before the next grant; the connection stays taken meanwhile.
      if (turnPending) return;
      turnPending = true;
      setImmediate(() => {
        turnPending = false;
        markTurn();
        (next() as Waiter).grant();
      });
      return;
    }
    (next() as Waiter).grant();
  };

  const acquire = (work: WorkClass): Promise<void> => {
    const enqueuedAt = now();
    const granted = (): void => {
      const waitMs = now() - enqueuedAt;
      const stats = waited[work];
      stats.grants++;
      stats.totalMs += waitMs;
      stats.maxMs = Math.max(stats.maxMs, waitMs);
      options.onGrant?.(waitMs, work);
    };
    if (!busy) {
      // An idle connection: the chain of grants starts here.
      busy = true;
      markTurn();
      granted();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      queues[work].push({
        enqueuedAt,
        grant: () => {
          granted();
          resolve();
        },
      });
    });
  };

  return {
    async run(work) {
      await acquire(currentWorkClass());
      try {
        return await work();
      } finally {
        handOn();
      }
    },
    turnIfDue() {
      if (now() - turnStartedAt < sliceMs) return undefined;
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          markTurn();
          resolve();
        }),
      );
    },
    stats() {
      return {
        waited: { request: { ...waited.request }, background: { ...waited.background } },
        waiting: { request: queues.request.length, background: queues.background.length },
      };
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: PGlite's signatures pass through untouched.
type Call = (...args: any[]) => Promise<unknown>;

/**
 * PGlite behind the gate: `query`, `exec` and `transaction` (held for the whole transaction; the
 * statements inside it go straight through, after a turn of the event loop when one is due) wait
 * their turn by the class of the work in progress. Patches the client in place.
 */
export function gateEmbeddedClient<Client extends { query: Call; exec: Call; transaction: Call }>(
  client: Client,
  gate: ConnectionGate,
): Client {
  for (const method of ["query", "exec"] as const) {
    const original = client[method].bind(client) as Call;
    client[method] = ((...args: unknown[]) => gate.run(() => original(...args))) as Client[typeof method];
  }
  const transaction = client.transaction.bind(client) as Call;
  client.transaction = ((work: (tx: { query: Call; exec: Call }) => unknown, ...rest: unknown[]) =>
    gate.run(() => transaction((tx: { query: Call; exec: Call }) => work(takingTurns(tx, gate)), ...rest))) as Client["transaction"];
  return client;
}

/** A transaction's statements, each after a turn of the event loop once a slice has passed (the connection stays the transaction's). */
function takingTurns<Tx extends { query: Call; exec: Call }>(tx: Tx, gate: ConnectionGate): Tx {
  for (const method of ["query", "exec"] as const) {
    const original = tx[method].bind(tx) as Call;
    tx[method] = (async (...args: unknown[]) => {
      await gate.turnIfDue();
      return original(...args);
    }) as Tx[typeof method];
  }
  return tx;
}
