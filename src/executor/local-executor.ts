import { randomUUID } from "node:crypto";
import { Cron } from "croner";
import { asBackgroundWork } from "../db/connection-gate.js";
import type { Database, Queryable } from "../db/database.js";
import { recordExecutorRun, startExecutorCounters } from "../telemetry/metrics.js";
import { currentTraceparent, inSpan, withTraceparent } from "../telemetry/tracing.js";
import { withLogContext } from "../util/log-context.js";
import { type ActiveRun, acceptCheckpoint } from "./checkpoints.js";
import { backoffMs } from "./durations.js";
import { type RegisteredFunction, SyncResponseSchema, toRegistered } from "./function-config.js";
import { driveRun, type Invoke } from "./run-driver.js";
import {
  type Claim,
  cancelRuns,
  claimDueRun,
  enqueueRun,
  type InngestEvent,
  msUntilNextDue,
  pruneFinishedRuns,
  type RunRow,
  recoverInterruptedRuns,
  renewLease,
  requeueExpiredLeases,
  requeueRun,
} from "./run-store.js";

export interface LocalExecutorOptions {
  db: Database;
  /** How requests reach the serve handler: `app.request` in-process, or `fetch`. */
  invoke: Invoke;
  /** The serve handler's URL, e.g. http://localhost:8787/api/inngest. */
  serveUrl: string;
  retryBaseMs?: number;
  /** Runs driven at once; their database work is serialised by the connection anyway. */
  parallelism?: number;
  /** Longest idle wait between queue checks when nothing is due (events wake it sooner). */
  idleCheckMs?: number;
  /**
   * How long a claimed run stays this process's without a renewal (renewed every third of it
   * while the run works). A process that dies loses its runs to the others after this long.
   */
  leaseMs?: number;
  /**
   * This process is the database's only user (PGlite): at start every run left `running` is its
   * own from before a restart and resumes at once. On a shared Postgres, leases decide.
   */
  exclusive?: boolean;
  /** Finished runs (and their steps) are deleted this long after they finished. */
  retentionMs?: number;
  /**
   * Whether an event still concerns something; events it refuses start no run (e.g. about erased
   * data). Asked inside the transaction that enqueues the runs, so it can lock what it checks.
   */
  accepts?: (tx: Queryable, data: Record<string, unknown>) => Promise<boolean>;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

/** How often finished runs past their retention are deleted. */
const PRUNE_EVERY_MS = 10 * 60_000;

const DEFAULT_LEASE_MS = 30_000;

/**
 * A small, durable Inngest executor for the embedded default. It syncs the app's functions through
 * the real serve handler, accepts events on the Inngest event API (`POST /e/<key>`), and drives
 * runs with memoized steps, retries with backoff, debounce, concurrency keys, sleeps, cron and
 * fan-out. All of its state is in Postgres, so a restart resumes every run; several processes
 * may share one Postgres (claims are serialised, runs are leased, a dead process's runs are
 * taken over). Production may use Inngest Cloud instead; the functions do not know the difference.
 *
 * @example
 * const executor = new LocalExecutor({ db, invoke: (url, init) => app.request(url, init), serveUrl });
 * await executor.start();
 */
export class LocalExecutor {
  private functions = new Map<string, RegisteredFunction>();
  private crons: Cron[] = [];
  private active = new Set<Promise<void>>();
  /** The runs being driven now, by run id, for the checkpoints their serve calls send. */
  private driven = new Map<string, ActiveRun>();
  private heartbeats = new Set<ReturnType<typeof setInterval>>();
  private running = false;
  /** Runs in flight hand themselves back to the queue at their next step (`stop({ releaseRuns: true })`). */
  private releasing = false;
  private wakeUp: (() => void) | undefined;
  /** Something became due while the loop was checking the queue (not yet asleep). */
  private wokenWhileAwake = false;
  private loop: Promise<void> | undefined;
  private nextPruneAt = 0;
  private nextLeaseSweepAt = 0;

  constructor(private readonly options: LocalExecutorOptions) {}

  /** The Inngest SDK's `fetch`: answers the event API and step checkpoints, refuses anything else loudly. */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (request.method === "POST" && /^\/e\/[^/]+$/.test(url.pathname)) {
      const body: unknown = await request.json();
      const events = (Array.isArray(body) ? body : [body]) as InngestEvent[];
      const ids = await this.ingest(events);
      return Response.json({ ids, status: 200 });
    }
    if (request.method === "POST" && /^\/v1\/checkpoint\/[^/]+\/async$/.test(url.pathname)) {
      return acceptCheckpoint(await request.json(), { db: this.options.db, active: this.driven, releasing: () => this.releasing });
    }
    return Response.json({ error: `the embedded executor does not serve ${request.method} ${url.pathname}` }, { status: 404 });
  };

  /** Between `start()` and `stop()`: the executor claims and drives runs. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Runs being driven now. */
  get inFlight(): number {
    return this.active.size;
  }

  /**
   * The runs being driven now, one phrase each: function, run id, for how long, after which step.
   * What a stop past its bound names, so the step that outlived it can be found.
   */
  describeInFlight(): string[] {
    const now = performance.now();
    return [...this.driven.entries()].map(
      ([runId, run]) =>
        `${run.functionId} run ${runId} for ${Math.round(now - run.since)} ms, ${run.lastStep ? `after step "${run.lastStep}"` : "before its first step"}`,
    );
  }

  get registered(): ReadonlyMap<string, RegisteredFunction> {
    return this.functions;
  }

  async start(): Promise<void> {
    this.releasing = false;
    await this.sync();
    const recovered = this.options.exclusive ? await recoverInterruptedRuns(this.options.db) : await requeueExpiredLeases(this.options.db);
    if (recovered > 0) this.options.log?.("resuming interrupted runs", { count: recovered });
    for (const fn of this.functions.values()) for (const pattern of fn.cronTriggers) this.scheduleCron(fn, pattern);
    startExecutorCounters(this.functions.keys());
    this.running = true;
    // Claims, polls and runs are background work: on the embedded database requests go first.
    this.loop = asBackgroundWork(() => this.pollLoop());
  }

  /**
   * Stops claiming runs and cron timers. By default waits for runs in flight to finish; with
   * `releaseRuns` each hands itself back to the queue after the step it is running (the next start,
   * or another process, resumes it at the following step); with `waitForRuns: false` it leaves
   * them as a crash would — their leases are no longer renewed — to be resumed by the next start
   * or taken over by another process.
   */
  async stop(options: { waitForRuns?: boolean; releaseRuns?: boolean } = {}): Promise<void> {
    this.running = false;
    if (options.releaseRuns) this.releasing = true;
    for (const cron of this.crons) cron.stop();
    this.crons = [];
    this.wake();
    await this.loop;
    if (options.waitForRuns ?? true) await Promise.allSettled([...this.active]);
    else for (const heartbeat of this.heartbeats) clearInterval(heartbeat);
  }

  /** Registers the app's functions from the serve handler's in-band sync answer. */
  async sync(): Promise<void> {
    const response = await this.options.invoke(this.options.serveUrl, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band" },
      body: JSON.stringify({ url: this.options.serveUrl }),
    });
    if (!response.ok) throw new Error(`Inngest sync failed with ${response.status}: ${await response.text()}`);
    const parsed = SyncResponseSchema.parse(await response.json());
    this.functions = new Map(parsed.functions.map((config) => [config.id, toRegistered(config)]));
  }

  /** Stores runs for every function an event triggers and wakes the loop. Returns event ids. */
  async ingest(events: InngestEvent[]): Promise<string[]> {
    const ids: string[] = [];
    for (const event of events) {
      const id = typeof event["id"] === "string" ? event["id"] : randomUUID();
      const stamped = { ...event, id, ts: typeof event["ts"] === "number" ? event["ts"] : Date.now(), data: event.data ?? {} };
      ids.push(id);
      const triggered = [...this.functions.values()].filter((fn) => fn.eventTriggers.includes(event.name));
      const cancelling = [...this.functions.values()].flatMap((fn) =>
        (fn.cancelOn ?? []).filter((cancel) => cancel.event === event.name).map((cancel) => ({ fn, path: cancel.path })),
      );
      if (triggered.length === 0 && cancelling.length === 0) continue;
      const { accepts } = this.options;
      // Whoever sent the event (an append's request, a step) is the trace its runs continue.
      const traceContext = currentTraceparent();
      await this.options.db.transaction(async (tx) => {
        for (const { fn, path } of cancelling) {
          const cancelled = await cancelRuns(tx, fn.id, path, valueAt(stamped.data, path));
          for (let count = 0; count < cancelled; count++) recordExecutorRun({ function: fn.id, status: "cancelled" });
        }
        if (accepts && !(await accepts(tx, stamped.data))) return;
        for (const fn of triggered) await enqueueRun(tx, fn, stamped, { traceContext });
      });
    }
    this.wake();
    return ids;
  }

  private scheduleCron(fn: RegisteredFunction, pattern: string): void {
    const match = /^TZ=(\S+)\s+(.*)$/.exec(pattern);
    const timezone = match?.[1];
    const expression = match?.[2] ?? pattern;
    const cron = new Cron(expression, { ...(timezone ? { timezone } : {}), protect: true }, async (self: Cron) => {
      const tick = self.currentRun() ?? new Date();
      const event = { name: "inngest/scheduled.timer", data: { cron: pattern }, id: randomUUID(), ts: tick.getTime() };
      // One run per tick, however many processes share the database and fire the same cron.
      const runId = `cron_${fn.id}_${tick.toISOString()}`;
      await enqueueRun(this.options.db, fn, event, { runId }).catch((error: unknown) =>
        this.options.log?.("cron enqueue failed", { fn: fn.id, error }),
      );
      this.wake();
    });
    this.crons.push(cron);
  }

  private async pollLoop(): Promise<void> {
    const parallelism = this.options.parallelism ?? 4;
    const idleCheckMs = this.options.idleCheckMs ?? 1000;
    while (this.running) {
      this.wokenWhileAwake = false;
      try {
        // A lease runs out `leaseMs` after its last renewal: looking a few times per lease is enough,
        // not at every wake-up (each finished run and each event wakes the loop).
        if (Date.now() >= this.nextLeaseSweepAt) {
          this.nextLeaseSweepAt = Date.now() + Math.max(100, this.leaseMs / 6);
          const expired = await requeueExpiredLeases(this.options.db);
          if (expired > 0) this.options.log?.("took over runs whose lease ran out", { count: expired });
        }
        if (this.options.retentionMs !== undefined && Date.now() >= this.nextPruneAt) {
          this.nextPruneAt = Date.now() + PRUNE_EVERY_MS;
          const pruned = await pruneFinishedRuns(this.options.db, this.options.retentionMs);
          if (pruned > 0) this.options.log?.("pruned finished runs past their retention", { count: pruned });
        }
        // A stop ends the claiming at once: a run it hands back is due again at once, and a loop
        // that went on would claim it, hand it back and claim it again until the stop's bound.
        while (this.running && this.active.size < parallelism) {
          const run = await claimDueRun(this.options.db, randomUUID(), this.leaseMs);
          if (!run) break;
          const task = this.execute(run).finally(() => {
            this.active.delete(task);
            this.wake();
          });
          this.active.add(task);
        }
        const nextDue = this.active.size >= parallelism ? idleCheckMs : await msUntilNextDue(this.options.db);
        await this.sleep(Math.min(nextDue ?? idleCheckMs, idleCheckMs));
      } catch (error) {
        this.options.log?.("executor loop error", { error });
        await this.sleep(idleCheckMs);
      }
    }
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  private async execute(run: RunRow): Promise<void> {
    const claim: Claim = { runId: run.id, token: run.claimToken as string };
    const fn = this.functions.get(run.functionId);
    if (!fn) {
      await requeueRun(this.options.db, claim, new Date(Date.now() + 60_000), run.attempt, {
        message: `function ${run.functionId} is not registered`,
      });
      return;
    }
    // The lease is renewed while the run works; a failed renewal (database gone) is retried at the
    // next beat, and a lease that runs out meanwhile hands the run to whichever process is alive.
    const heartbeat = setInterval(
      () => {
        renewLease(this.options.db, claim, this.leaseMs).catch((error: unknown) =>
          this.options.log?.("lease renewal failed", { run: run.id, error }),
        );
      },
      Math.max(100, this.leaseMs / 3),
    );
    this.heartbeats.add(heartbeat);
    const driven: ActiveRun = { claim, functionId: fn.id, since: performance.now() };
    this.driven.set(run.id, driven);
    try {
      // A span per claim of the run, in the trace of the event that created it.
      await withTraceparent(run.traceContext, () =>
        inSpan(`run ${fn.id}`, { "inngest.function.id": fn.id, "inngest.run.id": run.id, "inngest.run.attempt": run.attempt }, () =>
          withLogContext({ run_id: run.id, function_id: fn.id }, () =>
            driveRun(run, fn, {
              db: this.options.db,
              claim,
              invoke: this.options.invoke,
              retryBaseMs: this.options.retryBaseMs ?? 1000,
              stopping: () => this.releasing,
              halted: () => driven.halted,
              ...(this.options.log ? { log: this.options.log } : {}),
            }),
          ),
        ),
      );
    } catch (error) {
      // The call itself failed (transport, or the run's own bookkeeping, e.g. the database went
      // away): retry the run later. If even that write fails, the lease runs out and the run is
      // re-queued by whichever process checks next — it is never left `running` for good.
      this.options.log?.("run interrupted", { run: run.id, error });
      await requeueRun(
        this.options.db,
        claim,
        new Date(Date.now() + backoffMs(run.attempt, this.options.retryBaseMs ?? 1000)),
        run.attempt + 1,
        {
          message: String(error),
        },
      ).catch((requeueError: unknown) =>
        this.options.log?.("could not re-queue the run; its lease will", { run: run.id, error: requeueError }),
      );
    } finally {
      if (this.driven.get(run.id) === driven) this.driven.delete(run.id);
      clearInterval(heartbeat);
      this.heartbeats.delete(heartbeat);
    }
  }

  /** Ends the loop's sleep, or its next one when it is checking the queue right now. */
  private wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.wokenWhileAwake = true;
  }

  private sleep(ms: number): Promise<void> {
    // A run enqueued between the queue check and this sleep is due now: check again at once.
    if (this.wokenWhileAwake) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.wakeUp = done;
    });
  }
}

/** The string at `path` under an event's data (what `cancelOn`'s match compares), if any. */
function valueAt(data: Record<string, unknown>, path: string[]): string | undefined {
  let value: unknown = data;
  for (const part of path) value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  return value === undefined || value === null ? undefined : typeof value === "string" ? value : JSON.stringify(value);
}
