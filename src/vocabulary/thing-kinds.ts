/**
 * What a thing is a kind of, for telling that a statement about the kind speaks of a held fact
 * about the thing: "I've cut out alcohol" ends "User drinks red wine", "I gave up climbing" ends
 * "User goes bouldering". Roots as `wordRoots` gives them; one level, no chains.
 */
export const KIND_OF: Readonly<Record<string, string>> = {
  wine: "alcohol",
  beer: "alcohol",
  ale: "alcohol",
  pint: "alcohol",
  lager: "alcohol",
  cider: "alcohol",
  whisky: "alcohol",
  whiskey: "alcohol",
  vodka: "alcohol",
  gin: "alcohol",
  rum: "alcohol",
  tequila: "alcohol",
  cocktail: "alcohol",
  booze: "alcohol",
  prosecco: "alcohol",
  champagne: "alcohol",
  boulder: "climb",
  bouldering: "climb",
  jog: "run",
  jogging: "run",
  marathon: "run",
  espresso: "coffee",
  latte: "coffee",
  cappuccino: "coffee",
  cigar: "smoke",
  weed: "smoke",
  soda: "fizzy",
  cola: "fizzy",
  coke: "fizzy",
};

/** The kinds a word stands for, itself first: "wine" → wine, alcohol. */
export const withKinds = (word: string): string[] => (KIND_OF[word] ? [word, KIND_OF[word] as string] : [word]);
