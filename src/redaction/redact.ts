import type { RedactionKind } from "../vocabulary/redaction-kind.js";
import { DETECTORS } from "./detectors.js";

/** Which kinds to redact; empty (the default) redacts nothing. */
export type RedactionPolicy = ReadonlySet<RedactionKind>;

export type RedactionCounts = Partial<Record<RedactionKind, number>>;

/** What replaces a detected value: says what was there, keeps nothing of it. */
export const redactedMarker = (kind: RedactionKind) => `[redacted ${kind}]`;

/**
 * Replaces every detected value of the policy's kinds in `text` and counts them per kind. Markers
 * of earlier detectors are never matched again (they hold no digits, no @, nothing random).
 */
export function redactText(text: string, policy: RedactionPolicy, counts: RedactionCounts = {}): string {
  if (policy.size === 0) return text;
  let result = text;
  for (const [kind, detector] of DETECTORS) {
    if (!policy.has(kind)) continue;
    result = result.replace(detector.pattern, (match) => {
      if (detector.accept && !detector.accept(match)) return match;
      counts[kind] = (counts[kind] ?? 0) + 1;
      return redactedMarker(kind);
    });
  }
  return result;
}

/** The same for every string inside a JSON value (object keys included: a key can be an e-mail address). */
export function redactJson<T>(value: T, policy: RedactionPolicy, counts: RedactionCounts): T {
  if (policy.size === 0) return value;
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return redactText(node, policy, counts);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object")
      return Object.fromEntries(Object.entries(node).map(([key, inner]) => [redactText(key, policy, counts), walk(inner)]));
    return node;
  };
  return walk(value) as T;
}
