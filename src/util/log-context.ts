import { AsyncLocalStorage } from "node:async_hooks";

const storage = new AsyncLocalStorage<Readonly<Record<string, unknown>>>();

/**
 * Runs `work` with `fields` added to every log line written inside it, however deep and however
 * asynchronous (the request id of the request being served, the run of a durable step).
 *
 * @example
 * await withLogContext({ request_id: "abc" }, () => next());
 */
export function withLogContext<T>(fields: Record<string, unknown>, work: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, work);
}

/** The fields of the innermost `withLogContext`, if any. */
export function logContext(): Readonly<Record<string, unknown>> | undefined {
  return storage.getStore();
}
