/** Titles a name may carry or drop: "Mr. Ortiz" and "Ortiz" are one person's names. */
const HONORIFICS = new Set([
  "mr",
  "mrs",
  "ms",
  "miss",
  "mx",
  "dr",
  "prof",
  "professor",
  "sir",
  "madam",
  "aunt",
  "auntie",
  "uncle",
  "coach",
]);

/**
 * A name folded for matching: lower case, accents and punctuation dropped, spaces collapsed.
 *
 * @example
 * nameKey("  José  O'Neil "); // "jose oneil"
 */
export function nameKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’.]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The keys a name is found by: its folded form, and without a title ("Mr. Ortiz" → "mr ortiz",
 * "ortiz"). A leading "the" is dropped too ("the design studio").
 *
 * @example
 * nameKeys("Dr. Maya Lopez"); // ["dr maya lopez", "maya lopez"]
 */
export function nameKeys(name: string): string[] {
  const key = nameKey(name);
  const words = key.split(" ");
  const keys = [key];
  if (words.length > 1 && (HONORIFICS.has(words[0] as string) || words[0] === "the")) keys.push(words.slice(1).join(" "));
  return keys.filter((found) => found.length > 0);
}
