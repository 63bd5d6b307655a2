import { AsyncLocalStorage } from "node:async_hooks";

/**
 * How long a piece of work waited on the database in sequence. A database a region away costs a
 * round trip per sequential wait, however many statements are sent together, so this (and not the
 * number of statements) is what a request pays for distance.
 */
export interface StatementWaves {
  /**
   * Waves: a wave starts when a statement is sent while none of the work's statements is in
   * flight; statements sent while another is in flight join its wave.
   */
  waves: number;
  /**
   * The longest chain: a statement is one round after the latest round that had settled when it
   * was sent (the first ones are round 1). Unlike waves, a chain of statements is not hidden by
   * another statement in flight beside it.
   */
  rounds: number;
  /** Statements sent in all. */
  statements: number;
  /** Each statement as sent: what it touches (`statementSummary`), its wave and its round. */
  sent: { statement: string; wave: number; round: number }[];
}

class WaveCounter {
  waves = 0;
  rounds = 0;
  sent: StatementWaves["sent"] = [];
  private inFlight = 0;
  private settledRound = 0;

  send(statement: string): number {
    if (this.inFlight === 0) this.waves++;
    this.inFlight++;
    const round = this.settledRound + 1;
    this.rounds = Math.max(this.rounds, round);
    this.sent.push({ statement, wave: this.waves, round });
    return round;
  }

  settle(round: number): void {
    this.inFlight--;
    this.settledRound = Math.max(this.settledRound, round);
  }

  snapshot(): StatementWaves {
    return { waves: this.waves, rounds: this.rounds, statements: this.sent.length, sent: [...this.sent] };
  }
}

const counters = new AsyncLocalStorage<WaveCounter>();

/**
 * Runs `work`, counting the sequential waits of the statements it sends before it resolves (in its
 * async context: work started elsewhere, a background flush or another request, is not counted).
 * For tests and benchmarks; the drivers report statements through `observeStatement`.
 *
 * @example
 * const { result, waves, rounds } = await countStatementWaves(() => app.request("/v1/context", init));
 */
export async function countStatementWaves<T>(work: () => Promise<T>): Promise<StatementWaves & { result: T }> {
  const counter = new WaveCounter();
  const result = await counters.run(counter, work);
  return { result, ...counter.snapshot() };
}

/**
 * Reports one statement to the counter of the work in progress, if one counts: sent now, settled
 * when `running` settles. Returns `running` itself: the driver's promise passes through untouched.
 * `describe` names the statement (never its values) and is only called when counted.
 */
export function observeStatement<T>(running: T, describe: () => string): T {
  const counter = counters.getStore();
  if (!counter) return running;
  const round = counter.send(describe());
  const settle = () => counter.settle(round);
  if (running instanceof Promise) running.then(settle, settle);
  else settle();
  return running;
}
