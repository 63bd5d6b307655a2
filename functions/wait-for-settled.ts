type Requester = { request: (path: string) => Response | Promise<Response> };

export interface SettleOptions {
  /** Only this app's runs and backlog (default: the user id in every app). */
  appId?: string;
  /** Give up after this long (default: wait as long as it takes). */
  timeoutMs?: number;
  intervalMs?: number;
  /** Throw as soon as a run has failed instead of waiting for a settle that cannot come. */
  failOnFailedRuns?: boolean;
}

/**
 * Polls `GET /v1/pipeline/status` until the user's pipeline has nothing left to do, as a client
 * would: the CLI, the benchmarks, the evaluation, the examples and the tests all wait this way.
 */
export async function waitForSettled(app: Requester, userId: string, options: SettleOptions = {}): Promise<void> {
  const query = new URLSearchParams({ user_id: userId, ...(options.appId ? { app_id: options.appId } : {}) });
  const deadline = Date.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  let last: unknown;
  while (Date.now() < deadline) {
    const status = (await (await app.request(`/v1/pipeline/status?${query}`)).json()) as { settled: boolean; failed: number };
    last = status;
    if (options.failOnFailedRuns && status.failed > 0) throw new Error(`pipeline runs failed for ${userId}: ${JSON.stringify(status)}`);
    if (status.settled) return;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
  throw new Error(`pipeline did not settle for ${userId}: ${JSON.stringify(last)}`);
}
