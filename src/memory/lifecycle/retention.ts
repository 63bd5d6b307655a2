import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";

/** λ and forgetting threshold per kind of app; `default` is the general-purpose one. */
export const RETENTION_PRESETS = {
  default: { lambda: 0.1, threshold: 0.1 },
  high_interaction: { lambda: 0.15, threshold: 0.15 },
  low_interaction: { lambda: 0.05, threshold: 0.05 },
  sensitive: { lambda: 0.3, threshold: 0.2 },
  knowledge: { lambda: 0.02, threshold: 0.02 },
} as const;
export type RetentionPreset = keyof typeof RETENTION_PRESETS;

/** Trait decay rates by subtype, slowed by reinforcement: λ / (1 + 0.1·n). */
export const TRAIT_LAMBDA = { behavior: 0.005, preference: 0.002, core: 0.001 } as const;
const TRAIT_DEFAULT_LAMBDA = 0.003;

export const DecayParametersSchema = z.strictObject({
  preset: z.enum(Object.keys(RETENTION_PRESETS) as [RetentionPreset, ...RetentionPreset[]]).default("default"),
  lambda: z.number().positive().max(10).optional(),
  threshold: z.number().min(0).max(1).optional(),
  min_age_days: z.number().min(0).max(3650).default(7),
  /** Most current memories a user keeps; above it the lowest-retention episodes and insights go. */
  quota: z.number().int().min(1).optional(),
  /** Days a forgotten memory stays recoverable before it is purged for good (history stays). */
  purge_after_days: z.number().min(0).max(3650).default(30),
});
export type DecayParameters = z.infer<typeof DecayParametersSchema>;

export function resolveParameters(parameters: DecayParameters): { lambda: number; threshold: number; minAgeDays: number } {
  const preset = RETENTION_PRESETS[parameters.preset];
  return {
    lambda: parameters.lambda ?? preset.lambda,
    threshold: parameters.threshold ?? preset.threshold,
    minAgeDays: parameters.min_age_days,
  };
}

/** `traitLambda` in SQL over a row aliased `m`: its subtype's rate, slowed by its reinforcements. */
function traitLambdaSql(): SQL {
  return sql`(CASE m.subtype WHEN 'behavior' THEN ${sql.raw(String(TRAIT_LAMBDA.behavior))} WHEN 'preference' THEN ${sql.raw(String(TRAIT_LAMBDA.preference))} WHEN 'core' THEN ${sql.raw(String(TRAIT_LAMBDA.core))} ELSE ${sql.raw(String(TRAIT_DEFAULT_LAMBDA))} END / (1 + 0.1 * m.reinforcement_count))`;
}

/** A trait's confidence after decay since it was last reinforced, at `now`, in SQL over a row aliased `m`. */
export function decayedTraitConfidenceSql(now: SQL): SQL {
  return sql`m.confidence * ${decaySql(sql`${traitLambdaSql()} * greatest(0, extract(epoch FROM (${now} - coalesce(m.last_reinforced_at, m.created_at))) / 86400.0)`)}`;
}

/**
 * Past this many e-folds (e^−80 ≈ 2e−35) a decayed value is taken as 0. Postgres raises an error
 * where IEEE would round to zero: `exp()` below e^−745, and a `real` column below ~1e−45. Without
 * the cut-off, decay of a memory untouched for a year under the `sensitive` preset (λ 0.3), or
 * a few weeks at λ 10, fails for the whole user.
 */
const DECAYED_AWAY_EXPONENT = 80;

/** e^(−exponent) in SQL, 0 once the exponent passes DECAYED_AWAY_EXPONENT. */
function decaySql(exponent: SQL): SQL {
  return sql`(CASE WHEN ${exponent} > ${sql.raw(String(DECAYED_AWAY_EXPONENT))} THEN 0 ELSE exp(-(${exponent})) END)`;
}

/**
 * Retention = min(1, e^(−λ·days since last access) · (1 + ln(1 + access count)) / 5).
 *
 * @example
 * retentionScore({ accessCount: 0, daysSinceAccess: 0, lambda: 0.1 }); // 0.2
 */
export function retentionScore(input: { accessCount: number; daysSinceAccess: number; lambda: number }): number {
  const exponent = input.lambda * input.daysSinceAccess;
  if (exponent > DECAYED_AWAY_EXPONENT) return 0;
  return Math.min(1, (Math.exp(-exponent) * (1 + Math.log(1 + input.accessCount))) / 5);
}

/** The effective λ of a trait: its subtype's rate, slowed by the spacing effect of reinforcement. */
export function traitLambda(subtype: string | null, reinforcements: number): number {
  const base = TRAIT_LAMBDA[subtype as keyof typeof TRAIT_LAMBDA] ?? TRAIT_DEFAULT_LAMBDA;
  return base / (1 + 0.1 * reinforcements);
}

/** What a memory's retention is computed from: its last use, its uses, and for a trait its own rate. */
export interface RetentionInputs {
  type: string;
  subtype: string | null;
  accessCount: number;
  lastAccessedAt: Date;
  reinforcementCount: number;
}

/** When and at what rate retention is read: the runtime's clock and the scheduled decay's λ. */
export interface RetentionClock {
  lambda: number;
  now: Date;
}

/**
 * A memory's retention at `now`. Nothing stores it: it is a function of the last use and
 * the count of uses, so a use raises it at once, and time lowers it without a pass rewriting every
 * row (at 100K memories that rewrite was most of a decay pass).
 */
export function currentRetention(memory: RetentionInputs, { lambda, now }: RetentionClock): number {
  return retentionScore({
    accessCount: memory.accessCount,
    daysSinceAccess: Math.max(0, (now.getTime() - memory.lastAccessedAt.getTime()) / 86_400_000),
    lambda: memory.type === "trait" ? traitLambda(memory.subtype, memory.reinforcementCount) : lambda,
  });
}

/** The same formula in SQL over a `memories` row aliased `m` at `now`, for statements over many rows. */
export function retentionSql(lambda: number, now: SQL): SQL {
  const rate = sql`(CASE WHEN m.type = 'trait' THEN ${traitLambdaSql()} ELSE ${sql.raw(String(lambda))}::float8 END)`;
  const days = sql`greatest(0, extract(epoch FROM (${now} - m.last_accessed_at)) / 86400.0)`;
  return sql`least(1.0, ${decaySql(sql`${rate} * ${days}`)} * (1 + ln(1 + m.access_count)) / 5.0)`;
}
