/** A capitalised name of up to three words, with an optional title: "Maya", "Mr. Ortiz", "Lund University". */
export const NAME = String.raw`(?:(?:Mr|Mrs|Ms|Dr|Prof|Coach|Aunt|Uncle)\.?\s+)?\p{Lu}[\p{L}'-]*(?:\s+(?:de\s+|da\s+|van\s+|von\s+|of\s+)?\p{Lu}[\p{L}'-]*){0,2}`;

/** Words for relations between people (and their animals) as said, and the predicate each means. */
export const RELATION_WORDS: Readonly<Record<string, string>> = {
  partner: "partner",
  wife: "partner",
  husband: "partner",
  boyfriend: "partner",
  girlfriend: "partner",
  fiancé: "partner",
  fiance: "partner",
  fiancée: "partner",
  fiancee: "partner",
  spouse: "partner",
  mom: "mother",
  mum: "mother",
  mother: "mother",
  dad: "father",
  father: "father",
  son: "son",
  daughter: "daughter",
  kid: "child",
  child: "child",
  stepson: "son",
  stepdaughter: "daughter",
  brother: "brother",
  sister: "sister",
  grandma: "grandmother",
  grandmother: "grandmother",
  grandpa: "grandfather",
  grandfather: "grandfather",
  grandson: "grandson",
  granddaughter: "granddaughter",
  cousin: "cousin",
  niece: "niece",
  nephew: "nephew",
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

/** Animals a pet may be; the word is the pet's species. */
export const SPECIES = [
  "dog",
  "cat",
  "puppy",
  "kitten",
  "parrot",
  "rabbit",
  "bunny",
  "hamster",
  "horse",
  "pony",
  "tortoise",
  "turtle",
  "guinea pig",
  "budgie",
  "ferret",
  "snake",
  "lizard",
  "fish",
  "bird",
  "gerbil",
];

const alternatives = (words: readonly string[]) => [...words].sort((a, b) => b.length - a.length).join("|");

/** The relation words and species as one regular-expression alternation, longest first. */
export const RELATION_WORD = alternatives([...Object.keys(RELATION_WORDS), ...SPECIES]);
export const SPECIES_WORD = alternatives(SPECIES);

export const isSpecies = (word: string) => SPECIES.includes(word.toLowerCase());

/** The predicate a relation word means (`pet` for an animal). */
export function predicateOf(word: string): string {
  const lower = word.toLowerCase();
  return isSpecies(lower) ? "pet" : (RELATION_WORDS[lower] ?? lower);
}
