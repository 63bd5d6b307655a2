import { stemmer } from "stemmer";

/**
 * English function words: they say nothing of what a text is about, so matching on them would
 * favour any sentence at all. A closed class (Postgres' `english` stop list, less the few that
 * carry meaning in a question about the user: "no", "not", "again").
 */
const FUNCTION_WORDS = new Set(
  (
    "a about above after all am an and any are as at be because been before being below between both but by can could " +
    "did do does doing down during each few for from further had has have having he her here hers herself him himself his " +
    "how i if in into is it its itself just me more most my myself nor now of off on once only or other our ours " +
    "ourselves out over own same she should so some such than that the their theirs them themselves then there these they " +
    "this those through to too under until up very was we were what when where which while who whom why will with would " +
    "you your yours yourself yourselves i'm i've i'd i'll it's don't didn't can't"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/**
 * A text's content words, lower-cased and stemmed (Porter), function words left out: what two
 * texts share when they speak of the same thing, whatever the inflection ("dogs" and "dog").
 *
 * @example
 * contentStems("What breed are my dogs?"); // Set { "breed", "dog" }
 */
export function contentStems(text: string): Set<string> {
  const stems = new Set<string>();
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0].replace(/’/g, "'");
    if (FUNCTION_WORDS.has(word)) continue;
    stems.add(stemmer(word.replace(/'s$/, "")));
  }
  return stems;
}
