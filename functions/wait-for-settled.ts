type Requester = { request: (path: string) => Response | Promise<Response> };

export interface SettleOptions {
  /** Only this app's runs and backlog (default: the user id in every app). */
  appId?: string;
  /** Give up after this long (default: wait as long as it takes). */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `GET /v1/pipeline/status` until the user's pipeline has nothing left to do, as a client
 * would: the CLI, the benchmarks, the evaluation, the examples and the tests all wait this way.
 * A parked stage (dead letter) will not settle by itself, so it ends the wait with its error.
 */
export async function waitForSettled(app: Requester, userId: string, options: SettleOptions = {}): Promise<void> {
  const query = new URLSearchParams({ user_id: userId, ...(options.appId ? { app_id: options.appId } : {}) });
  const deadline = Date.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  let last: unknown;
  while (Date.now() < deadline) {
    const response = await app.request(`/v1/pipeline/status?${query}`);
    const status = (await response.json()) as { settled: boolean; parked?: unknown[] };
    if (response.status !== 200) throw new Error(`pipeline status for ${userId}: ${response.status} ${JSON.stringify(status)}`);
    last = status;
    if (status.parked && status.parked.length > 0)
      throw new Error(`pipeline stages parked for ${userId} (retry with POST /v1/pipeline/retry): ${JSON.stringify(status.parked)}`);
    if (status.settled) return;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
  throw new Error(`pipeline did not settle for ${userId}: ${JSON.stringify(last)}`);
}
