import { NonRetriableError } from "inngest";
import type { z } from "zod";

/** Validates an event's data at the function boundary; a bad payload will never succeed, so it is not retried. */
export function parsePayload<Schema extends z.ZodType>(schema: Schema, event: { name: string; data: unknown }): z.infer<Schema> {
  const parsed = schema.safeParse(event.data);
  if (!parsed.success) throw new NonRetriableError(`invalid ${event.name} payload: ${parsed.error.message}`);
  return parsed.data;
}
