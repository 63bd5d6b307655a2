/**
 * Words that only acknowledge, greet, thank or cheer. "Yes", "no", "me too" and the like are not
 * here: they answer something, and the answer is the information.
 */
const FILLER = new Set(
  (
    "ok okay k kk noted thanks thank thx ty you so much very sure great cool nice awesome perfect alright " +
    "got it gotcha understood sounds good fun lovely wonderful amazing fantastic excellent will do " +
    "welcome you're youre hi hello hey bye goodbye cheers lol haha hahaha hmm mhm oh wow indeed " +
    "of course absolutely glad to hear that that's thats is a the really"
  ).split(" "),
);

/**
 * A turn that says nothing a memory could hold ("Noted!", "Thanks so much!", "👍"): kept in the
 * log and in the summary of its chunk, but not written as a turn memory, so it never takes a
 * context window's budget.
 */
export function isLowInformation(text: string): boolean {
  const words = text.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? [];
  return words.length <= 6 && words.every((word) => FILLER.has(word.replace(/’/g, "'")));
}
