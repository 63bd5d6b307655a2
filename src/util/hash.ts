import { createHash } from "node:crypto";

/** JSON with object keys sorted, so equal values always serialise to the same string. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner && typeof inner === "object" && !Array.isArray(inner)) {
      const record = inner as Record<string, unknown>;
      return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
    }
    return inner;
  });
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
