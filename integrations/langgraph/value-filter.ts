import { z } from "zod";

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const Operators = z.strictObject({
  $eq: Scalar.optional(),
  $ne: Scalar.optional(),
  $gt: z.union([z.number(), z.string()]).optional(),
  $gte: z.union([z.number(), z.string()]).optional(),
  $lt: z.union([z.number(), z.string()]).optional(),
  $lte: z.union([z.number(), z.string()]).optional(),
  $in: z.array(Scalar).optional(),
  $nin: z.array(Scalar).optional(),
});

/**
 * A LangGraph search filter: each field of an item's value is compared with a value (equal) or with
 * operators (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`), as LangGraph's own stores do.
 */
export const ValueFilterSchema = z.record(z.string().min(1).max(200), z.union([Scalar, Operators]));
export type ValueFilter = z.infer<typeof ValueFilterSchema>;

/** Whether an item's value passes every condition of the filter. */
export function matchesFilter(value: Record<string, unknown>, filter: ValueFilter | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, condition]) => compare(value[field], condition));
}

function compare(actual: unknown, condition: ValueFilter[string]): boolean {
  if (condition === null || typeof condition !== "object") return actual === condition;
  return Object.entries(condition).every(([operator, expected]) => {
    switch (operator) {
      case "$eq":
        return actual === expected;
      case "$ne":
        return actual !== expected;
      case "$gt":
        return Number(actual) > Number(expected);
      case "$gte":
        return Number(actual) >= Number(expected);
      case "$lt":
        return Number(actual) < Number(expected);
      case "$lte":
        return Number(actual) <= Number(expected);
      case "$in":
        return Array.isArray(expected) && expected.includes(actual as never);
      case "$nin":
        return Array.isArray(expected) && !expected.includes(actual as never);
      default:
        return false;
    }
  });
}
