/**
 * The closed word classes the offline reader knows by name: kinship, partners, animals kept as pets,
 * the verbs of liking and of consuming, diets and relationship states, and the verbs whose meaning is
 * an ending. Each is a small, finite class of the language, not a list of things people say: what
 * falls outside them is read by grammar alone, or left to the LLM providers.
 */

const words = (list: string) => list.split(" ").map((word) => word.replace(/_/g, " "));
const oneOf = (list: readonly string[]) => new RegExp(`^(?:${list.join("|")})$`, "i");

/** Words for a partner, all one relation (`profile:partner`). */
export const PARTNER_WORDS = words("partner wife husband boyfriend girlfriend fiancé fiance fiancée fiancee spouse");

/** Relatives a person has one of, keyed by the relation (`family:mother`), each word with the relation it means. */
export const PARENT_WORDS: Readonly<Record<string, string>> = {
  mom: "mother",
  mum: "mother",
  mother: "mother",
  dad: "father",
  father: "father",
  grandma: "grandmother",
  granny: "grandmother",
  nan: "grandmother",
  grandmother: "grandmother",
  grandpa: "grandfather",
  grandad: "grandfather",
  granddad: "grandfather",
  grandfather: "grandfather",
};

/** Relatives a person may have several of, each keyed by name (`family:daughter:lena`). */
export const RELATIVE_WORDS = words(
  "son daughter brother sister stepson stepdaughter cousin niece nephew grandson granddaughter aunt uncle",
);

/** Every kinship word. */
export const KIN_WORDS = [...PARTNER_WORDS, ...Object.keys(PARENT_WORDS), ...RELATIVE_WORDS];

/** People a person is related to by what they do for them, not by kin: the entity graph's roles. */
export const ROLE_WORDS = words(
  "friend best_friend colleague coworker co-worker boss manager teacher coach tutor doctor therapist neighbour neighbor roommate flatmate",
);

/** Animals people keep, each as its species; a young one's word says its species (a puppy is a dog). */
export const SPECIES: Readonly<Record<string, string>> = {
  dog: "dog",
  puppy: "dog",
  cat: "cat",
  kitten: "cat",
  rabbit: "rabbit",
  bunny: "rabbit",
  hamster: "hamster",
  "guinea pig": "guinea pig",
  gerbil: "gerbil",
  rat: "rat",
  mouse: "mouse",
  ferret: "ferret",
  horse: "horse",
  pony: "horse",
  parrot: "parrot",
  budgie: "budgie",
  bird: "bird",
  chicken: "chicken",
  fish: "fish",
  tortoise: "tortoise",
  turtle: "turtle",
  snake: "snake",
  lizard: "lizard",
};
export const SPECIES_WORDS = Object.keys(SPECIES);

/** The verbs of liking and disliking, with the way they lean. */
export const ATTITUDE_VERBS: Readonly<Record<string, 1 | -1>> = {
  love: 1,
  like: 1,
  adore: 1,
  enjoy: 1,
  prefer: 1,
  hate: -1,
  dislike: -1,
  detest: -1,
  loathe: -1,
};
/** The strong ones: a fact of these is held with more confidence. */
export const STRONG_ATTITUDES = new Set(["love", "adore", "hate", "detest", "loathe"]);

/** The verbs of consuming. */
export const CONSUMING_VERBS = new Set(["drink", "eat", "smoke", "vape"]);

/** Diets a person keeps, said with "I am …". */
export const DIETS = words("vegetarian vegan pescatarian");

/** Relationship states, said with "I am …". */
export const RELATIONSHIP_STATES = words("single married divorced widowed separated engaged");

/**
 * The verbs whose meaning is an ending, by what they end: a habit or an activity stopped, a job or
 * a place left, a possession parted with, a partner separated from, a life ended, studies finished.
 */
export const ENDING_VERBS = {
  cessation: words("stop quit give_up drop cut_out"),
  leaving: words("leave quit resign retire"),
  // "got rid of" parses as the lemma "rid".
  parting: words("sell give_away rid"),
  separation: words("break_up split_up split divorce separate"),
  death: words("die pass_away"),
  studies: words("graduate finish drop_out"),
} as const;

export const isKin = (word: string) => oneOf(KIN_WORDS).test(word);
export const isPartnerWord = (word: string) => oneOf(PARTNER_WORDS).test(word);
export const isSpecies = (word: string) => oneOf(SPECIES_WORDS).test(word);
/** The alternation of a class for a regular expression, longest first so "guinea pig" wins over "pig". */
export const alternation = (list: readonly string[]) => [...list].sort((a, b) => b.length - a.length).join("|");
