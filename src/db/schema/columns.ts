import { customType, timestamp } from "drizzle-orm/pg-core";

/**
 * pgvector `halfvec` without a fixed dimension: the dimension follows the configured embedding
 * model (512 offline, 768 Gemini), and `embedding_model` on the row says which model made it, so
 * vectors of different models are never compared.
 */
export const halfvec = customType<{ data: number[]; driverData: string }>({
  dataType: () => "halfvec",
  toDriver: (value) => `[${value.join(",")}]`,
  fromDriver: (value) => JSON.parse(value) as number[],
});

/** Postgres `tsvector`, filled by a generated column. */
export const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * Postgres `integer`'s largest value. A larger number bound against an integer column is an error
 * ("out of range for type integer"), not "nothing matches", so inputs compared with one are capped here.
 */
export const INTEGER_MAX = 2_147_483_647;

export const timestampTz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** Postgres `bit varying`, for binary-quantised embeddings. */
export const varbit = customType<{ data: string }>({ dataType: () => "bit varying" });

/**
 * Postgres `real`, rounded to single precision before it is sent. Postgres refuses a value that
 * underflows `real` ("out of range for type real") where IEEE rounding would give 0, so a valid
 * importance of 3e-67 from a client or a model would fail the whole write; `Math.fround` stores
 * what the column would hold anyway.
 */
export const float4 = customType<{ data: number; driverData: number | string }>({
  dataType: () => "real",
  toDriver: (value) => Math.fround(value),
  // As drizzle's own `real`: a driver may hand the value over as text.
  fromDriver: (value) => (typeof value === "string" ? Number.parseFloat(value) : value),
});
