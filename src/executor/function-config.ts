import { z } from "zod";
import { parseTimeString } from "./durations.js";
import { assertSupportedKey } from "./expressions.js";

const TriggerSchema = z.union([
  z.object({ event: z.string().min(1), expression: z.string().optional() }),
  z.object({ cron: z.string().min(1) }),
]);

const ConcurrencySchema = z.object({ limit: z.number().int().min(0), key: z.string().optional(), scope: z.string().optional() });

/** The part of the SDK's in-band sync answer that the executor acts on. Unknown fields pass. */
export const FunctionConfigSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  triggers: z.array(TriggerSchema).min(1),
  steps: z.record(
    z.string(),
    z.object({ runtime: z.object({ url: z.string().url() }), retries: z.object({ attempts: z.number().int().min(0) }).optional() }),
  ),
  debounce: z.object({ key: z.string().optional(), period: z.string(), timeout: z.string().optional() }).optional(),
  concurrency: z.union([z.number().int(), ConcurrencySchema, z.array(ConcurrencySchema)]).optional(),
  cancel: z.array(z.object({ event: z.string().min(1), if: z.string().optional(), timeout: z.string().optional() })).optional(),
});

export const SyncResponseSchema = z.object({ app_id: z.string(), functions: z.array(FunctionConfigSchema) });

export type FunctionConfig = z.infer<typeof FunctionConfigSchema>;

/**
 * An event that cancels the function's runs not yet finished: those whose triggering event has the
 * same value at `path` under `data` as the cancelling one (every run when `path` is empty).
 */
export interface Cancellation {
  event: string;
  path: string[];
}

export interface RegisteredFunction {
  id: string;
  url: string;
  maxAttempts: number;
  eventTriggers: string[];
  cronTriggers: string[];
  debounce?: { key?: string; periodMs: number; timeoutMs?: number };
  /**
   * `shared`: the key's limit holds across every function that names the same key with the env (or
   * account) scope, not per function, e.g. two functions that must never work on one session at once.
   */
  concurrency?: { limit: number; key?: string; shared?: boolean };
  cancelOn?: Cancellation[];
}

/**
 * What the executor keeps of a function's sync answer, refusing what it cannot honour (trigger
 * expressions, several concurrency constraints, keys it cannot evaluate, cancellations it cannot
 * match) instead of ignoring it.
 */
export function toRegistered(config: FunctionConfig): RegisteredFunction {
  const step = Object.values(config.steps)[0];
  if (!step) throw new Error(`function ${config.id} has no step to call`);
  const eventTriggers: string[] = [];
  const cronTriggers: string[] = [];
  for (const trigger of config.triggers) {
    if ("cron" in trigger) cronTriggers.push(trigger.cron);
    else if (trigger.expression) throw new Error(`${config.id}: trigger expressions are not supported by the embedded executor`);
    else eventTriggers.push(trigger.event);
  }
  if (Array.isArray(config.concurrency) && config.concurrency.length > 1) {
    throw new Error(`${config.id}: the embedded executor supports one concurrency constraint, not ${config.concurrency.length}`);
  }
  const concurrency = Array.isArray(config.concurrency)
    ? config.concurrency[0]
    : typeof config.concurrency === "number"
      ? { limit: config.concurrency }
      : config.concurrency;
  if (concurrency?.key) assertSupportedKey(concurrency.key, `${config.id} concurrency`);
  if (config.debounce?.key) assertSupportedKey(config.debounce.key, `${config.id} debounce`);
  const cancelOn = (config.cancel ?? []).map((cancel) => toCancellation(config.id, cancel));
  return {
    id: config.id,
    url: step.runtime.url,
    maxAttempts: (step.retries?.attempts ?? 3) + 1,
    ...(cancelOn.length > 0 ? { cancelOn } : {}),
    eventTriggers,
    cronTriggers,
    ...(config.debounce
      ? {
          debounce: {
            ...(config.debounce.key ? { key: config.debounce.key } : {}),
            periodMs: parseTimeString(config.debounce.period),
            ...(config.debounce.timeout ? { timeoutMs: parseTimeString(config.debounce.timeout) } : {}),
          },
        }
      : {}),
    ...(concurrency
      ? {
          concurrency: {
            limit: concurrency.limit,
            ...(concurrency.key ? { key: concurrency.key } : {}),
            ...(concurrency.scope === "env" || concurrency.scope === "account" ? { shared: true } : {}),
          },
        }
      : {}),
  };
}

/** `cancelOn` with `match`: the SDK sends `event.data.<path> == async.data.<path>`. */
const MATCH = /^\s*event\.data\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*==\s*async\.data\.\1\s*$/;

function toCancellation(
  functionId: string,
  cancel: { event: string; if?: string | undefined; timeout?: string | undefined },
): Cancellation {
  if (cancel.timeout) throw new Error(`${functionId}: the embedded executor does not support a cancelOn timeout`);
  if (cancel.if === undefined) return { event: cancel.event, path: [] };
  const match = MATCH.exec(cancel.if);
  if (!match)
    throw new Error(`${functionId}: the embedded executor supports cancelOn with match (event.data.x == async.data.x), not "${cancel.if}"`);
  return { event: cancel.event, path: (match[1] as string).split(".") };
}
