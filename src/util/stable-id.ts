import { sha256Hex } from "./hash.js";

/**
 * A UUID derived from a name (RFC 9562 version 8 layout), so a retried step that creates a row
 * derives the same id and finds the row it may already have written.
 */
export function stableUuid(name: string): string {
  const hex = sha256Hex(name);
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
