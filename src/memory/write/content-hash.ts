import { canonicalJson, sha256Hex } from "../../util/hash.js";

/** A memory's identity by content, for the exact-duplicate fast path: case and spacing do not count. */
export function contentHash(content: string): string {
  return sha256Hex(canonicalJson(content.trim().toLowerCase().replace(/\s+/g, " ")));
}
