import { z } from "zod";
import { INTEGER_MAX } from "../db/schema/columns.js";
import { ExternalIdSchema } from "../vocabulary/external-id.js";

const JsonObjectSchema = z.record(z.string(), z.unknown());
const IdSchema = ExternalIdSchema;

export const CreateSessionSchema = z.strictObject({
  user_id: IdSchema,
  app_id: IdSchema.default("default"),
  agent_id: IdSchema.optional(),
  metadata: JsonObjectSchema.default({}),
  started_at: z.iso.datetime({ offset: true }).optional(),
});
export type CreateSession = z.infer<typeof CreateSessionSchema>;

export const ListSessionsQuerySchema = z.strictObject({
  user_id: IdSchema,
  app_id: IdSchema.default("default"),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListSessionsQuery = z.infer<typeof ListSessionsQuerySchema>;

export const EVENT_ROLES = ["user", "assistant", "system", "tool"] as const;

export const EventInputSchema = z.strictObject({
  type: z.string().trim().min(1).max(100),
  role: z.enum(EVENT_ROLES),
  content: z.string().max(100_000),
  data: JsonObjectSchema.optional(),
  occurred_at: z.iso.datetime({ offset: true }).optional(),
  idempotency_key: z.string().min(1).max(200).optional(),
});
export type EventInput = z.infer<typeof EventInputSchema>;

export const AppendEventsSchema = z.strictObject({
  events: z
    .array(EventInputSchema)
    .min(1)
    .max(500)
    .superRefine((events, ctx) => {
      const seen = new Map<string, number>();
      events.forEach((event, index) => {
        if (!event.idempotency_key) return;
        const first = seen.get(event.idempotency_key);
        if (first !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [index, "idempotency_key"],
            message: `repeats the idempotency_key of events[${first}]`,
          });
        }
        seen.set(event.idempotency_key, index);
      });
    }),
});
export type AppendEvents = z.infer<typeof AppendEventsSchema>;

export const ReadEventsQuerySchema = z.strictObject({
  after_seq: z.coerce.number().int().min(0).max(INTEGER_MAX).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type ReadEventsQuery = z.infer<typeof ReadEventsQuerySchema>;

const StateDeltaSchema = z.record(z.string().min(1).max(200), z.unknown());

/** A delta per scope: keys are set to the given value, a `null` value removes the key. */
export const PatchStateSchema = z
  .strictObject({ session: StateDeltaSchema.optional(), user: StateDeltaSchema.optional(), app: StateDeltaSchema.optional() })
  .refine((body) => body.session || body.user || body.app, { message: "give at least one of session, user, app" });
export type PatchState = z.infer<typeof PatchStateSchema>;

export const SessionIdSchema = z.strictObject({ id: z.uuid() });
