import nlp from "compromise";

/** Whether a fact states something (1), its opposite (-1, "doesn't like"), or that it ended (0, "no longer", "quit"). */
export type Polarity = 1 | -1 | 0;

/** A fact as the memory holds it (an extracted fact, a known fact, a stored row). */
export interface FactLike {
  key: string;
  value: unknown;
  content: string;
}

/** What a fact is about, for telling whether two facts speak of the same thing. */
export interface FactSubject {
  /** The key's namespace (`attitude`, `consumes`, `pet`…), or `profile:<attribute>`. */
  family: string;
  /** Roots of the words naming the thing: "smoking" → smoke, "horror films" → horror, film. */
  words: ReadonlySet<string>;
  /** The root of the word the thing's phrase ends on ("film" of "horror films"), if any. */
  head?: string;
  /** What a habit does with it: "drink" of "User drinks coffee." */
  verb?: string;
  /** People and animals it names, lower-case. */
  names: ReadonlySet<string>;
  polarity: Polarity;
}

/** Words of a key or a value that name no thing: relations, verbs of attitude and of stopping, fillers. */
const NOT_THE_THING = new Set(
  "user i me my our we the a an of to in on at for with and or by from no not longer anymore any more never is be am are was do does did have has had go goes get got take takes make made quit stop stopped give up gave gone off love like enjoy adore prefer hate dislike detest loathe fan being".split(
    " ",
  ),
);
/** The verbs of consuming used alone name their habit: "quit drinking" is alcohol, not coffee; "smoking" is whatever was smoked. */
const IDIOMS: Record<string, string[]> = {
  drinking: ["alcohol"],
  smoking: ["smoke"],
  vaping: ["vape"],
};

const ENDED =
  /\b(?:no longer|not any ?more|anymore|any more|quit|stopped|gave up|given up|used to|gone off|went off|lost interest|over it|sold|left|ended|broke up|split up|divorced|separated|died|passed away|graduated)\b/i;
const NEGATIVE =
  /\b(?:doesn't|does not|don't|do not|isn't|is not|not a fan|never|dislikes|hates|detests|loathes|can't stand|cannot stand|avoids)\b/i;

/**
 * What `fact` is about: the roots of the words of its key after the namespace (`attitude:country_music`
 * → country, music) and of its structured value's object, its names, and its polarity — from the
 * value when it says (`polarity`, `stopped`, `never`), else from the content's words.
 *
 * @example
 * subjectOf({ key: "consumes:coffee", value: { item: "coffee", stopped: true }, content: "User no longer drinks coffee." })
 * // → { family: "consumes", words: {"coffee"}, names: {}, polarity: 0 }
 */
export function subjectOf(fact: FactLike): FactSubject {
  const [namespace = "", ...rest] = fact.key.split(":");
  const family = namespace === "profile" ? `profile:${rest[0] ?? ""}` : namespace;
  const value = fact.value && typeof fact.value === "object" ? (fact.value as Record<string, unknown>) : {};
  const names = new Set<string>();
  for (const field of ["name", "person", "pet"]) if (typeof value[field] === "string") names.add((value[field] as string).toLowerCase());
  const phrases: string[] = [];
  if (namespace === "profile" || namespace === "family" || namespace === "pet") {
    // A relation key names its person last: `family:daughter:mia`, `pet:dog:rufus`.
    if (namespace !== "profile" && rest.length > 1) names.add((rest.at(-1) as string).replace(/_/g, " "));
  } else {
    // A favourite is its value: "User's favorite band is Coldplay." is about Coldplay.
    for (const field of ["object", "item", "habit", "subject", "activity", "thing", "value"])
      if (typeof value[field] === "string") phrases.push(value[field] as string);
    if (phrases.length === 0) phrases.push(rest.join(" ").replace(/_/g, " "));
  }
  const words = phrases.flatMap(wordRoots);
  const verb = family === "consumes" ? consumptionVerb(fact, value) : undefined;
  return {
    family,
    words: new Set(words),
    ...(words.length > 0 ? { head: words.at(-1) as string } : {}),
    ...(verb ? { verb } : {}),
    names,
    polarity: polarityOf(fact, value),
  };
}

/** The verb of a consumption fact, from its value or its sentence: drink, eat, smoke, vape. */
function consumptionVerb(fact: FactLike, value: Record<string, unknown>): string | undefined {
  const said =
    (typeof value.verb === "string" ? value.verb : undefined) ??
    /\bUser (?:no longer |doesn't |does not |never |quit |stopped )?(drinks?|eats?|smokes?|vapes?|drinking|eating|smoking|vaping)\b/i.exec(
      fact.content,
    )?.[1];
  return said
    ? said
        .toLowerCase()
        .replace(/(?:s|ing)$/, "")
        .replace(/^smok$/, "smoke")
        .replace(/^vap$/, "vape")
    : undefined;
}

function polarityOf(fact: FactLike, value: Record<string, unknown>): Polarity {
  if (typeof value.polarity === "number") return value.polarity > 0 ? 1 : value.polarity < 0 ? -1 : 0;
  if (value.stopped === true) return 0;
  if (value.never === true) return -1;
  if (ENDED.test(fact.content)) return 0;
  if (NEGATIVE.test(fact.content)) return -1;
  return 1;
}

/**
 * The roots of the content words of `text` ("horror films" → horror, film; "smoking" → smoke),
 * without the words that name no thing, and with the idioms' meanings ("drinking" → alcohol).
 */
export function wordRoots(text: string): string[] {
  if (text.trim() === "") return [];
  const doc = nlp(text);
  doc.compute("root");
  // compromise's json() fills `root` once compute("root") ran; its types do not list the option.
  const options = { terms: { root: true } } as Parameters<typeof doc.json>[0];
  const terms = (doc.json(options) as { terms: { normal: string; root?: string }[] }[]).flatMap((sentence) => sentence.terms);
  return terms.flatMap((term) => {
    const normal = term.normal.replace(/[^\p{L}\p{N}'-]/gu, "");
    if (normal === "" || NOT_THE_THING.has(normal)) return [];
    if (IDIOMS[normal]) return IDIOMS[normal] as string[];
    const root = (term.root ?? normal).replace(/[^\p{L}\p{N}'-]/gu, "");
    if (IDIOMS[root]) return IDIOMS[root] as string[];
    return root === "" || NOT_THE_THING.has(root) ? [] : [root];
  });
}

/**
 * Whether a statement (the newer fact) speaks of the thing a held fact is about: they name the same
 * person or animal, or every word of the statement's thing is in the held fact's (its verb
 * counted) and the held thing's head word or verb is among the statement's. "coffee" matches
 * "loves coffee" and "drinks coffee"; "smoking" matches "smokes a pack a day"; "Japanese" does not
 * match "Japanese food", nor "country music" "jazz music".
 */
export function sameThing(statement: FactSubject, held: FactSubject): boolean {
  if ([...statement.names].some((name) => held.names.has(name))) return true;
  if (statement.words.size === 0) return false;
  const heldWords = new Set([...held.words, ...(held.verb ? [held.verb] : [])]);
  if (![...statement.words].every((word) => heldWords.has(word))) return false;
  return [held.head, held.verb].some((word) => word !== undefined && statement.words.has(word));
}
