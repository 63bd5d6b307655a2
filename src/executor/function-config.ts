import { z } from "zod";

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
});

export const SyncResponseSchema = z.object({ app_id: z.string(), functions: z.array(FunctionConfigSchema) });

export type FunctionConfig = z.infer<typeof FunctionConfigSchema>;

export interface RegisteredFunction {
  id: string;
  url: string;
  maxAttempts: number;
  eventTriggers: string[];
  cronTriggers: string[];
  debounce?: { key?: string; periodMs: number; timeoutMs?: number };
  concurrency?: { limit: number; key?: string };
}
