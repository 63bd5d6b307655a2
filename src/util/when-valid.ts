import type { z } from "zod";

/**
 * For a refinement that compares fields (`reserve_output_tokens < max_tokens`): run it only when
 * none of those fields failed its own check, so a wrong `max_tokens` is reported once, for itself,
 * and not also as a comparison about a field the caller sent right or did not send at all. Without
 * it, zod runs an object's refinements after a field's non-fatal failure (a number too small).
 * As without it, nothing runs after a fatal one (not an object, a field of the wrong type): the
 * values compared may not exist.
 *
 * @example
 * z.object({ max: z.number().min(16), reserve: z.number().default(0) })
 *   .refine((body) => body.reserve < body.max, { path: ["reserve"], message: "must be smaller than max", when: whenValid("max", "reserve") });
 */
export function whenValid(...fields: string[]): (payload: z.core.ParsePayload) => boolean {
  return (payload) => payload.issues.every((issue) => issue.continue === true && !fields.includes(String(issue.path?.[0])));
}
