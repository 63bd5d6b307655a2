import { isSpecies, PARENT_WORDS, PARTNER_WORDS, RELATIVE_WORDS, SPECIES_WORDS } from "../facts/word-classes.js";

export { isSpecies };

/** A capitalised name of up to three words, with an optional title: "Maya", "Mr. Ortiz", "Lund University". */
export const NAME = String.raw`(?:(?:Mr|Mrs|Ms|Dr|Prof|Coach|Aunt|Uncle)\.?\s+)?\p{Lu}[\p{L}'-]*(?:\s+(?:de\s+|da\s+|van\s+|von\s+|of\s+)?\p{Lu}[\p{L}'-]*){0,2}`;

/** Words for relations between people (and their animals) as said, and the predicate each means. */
export const RELATION_WORDS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(PARTNER_WORDS.map((word) => [word, "partner"])),
  ...PARENT_WORDS,
  ...Object.fromEntries(RELATIVE_WORDS.map((word) => [word, word.replace(/^step/, "")])),
  kid: "child",
  child: "child",
  friend: "friend",
  "best friend": "best_friend",
  colleague: "colleague",
  coworker: "colleague",
  "co-worker": "colleague",
  boss: "boss",
  manager: "boss",
  teacher: "teacher",
  coach: "teacher",
  tutor: "teacher",
  doctor: "doctor",
  therapist: "doctor",
};

/** Animals a pet may be (the closed class of the fact readers); the word is the pet's species. */
export const SPECIES: readonly string[] = SPECIES_WORDS;

const alternatives = (words: readonly string[]) => [...words].sort((a, b) => b.length - a.length).join("|");

/** The relation words and species as one regular-expression alternation, longest first. */
export const RELATION_WORD = alternatives([...Object.keys(RELATION_WORDS), ...SPECIES]);
export const SPECIES_WORD = alternatives(SPECIES);

/** The predicate a relation word means (`pet` for an animal). */
export function predicateOf(word: string): string {
  const lower = word.toLowerCase();
  return isSpecies(lower) ? "pet" : (RELATION_WORDS[lower] ?? lower);
}
