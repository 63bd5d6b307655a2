/** Words that open an address to someone: "Hey Mel", "Thanks, Caroline", "Congrats Jon". */
const GREETINGS =
  /(?:^|\s)(?:hey|hi|hello|hiya|yo|thanks|thank you|thx|congrats|congratulations|wow|woah|whoa|yes|yeah|yep|yup|no|nope|sure|absolutely|totally|oh|aw|aww|awesome|great|cool|bye|goodbye|night|morning|dear|sorry|ok|okay|well|haha|lol|omg|right|exactly|true|nice|love it|me too|same|of course|indeed),?\s*$/i;

/**
 * Whether the name at `start` (of `length` characters) in a clause addresses the listener rather
 * than speaks of someone: "Thanks, Melanie", "Hey Mel", "Caroline, you did it", "You're right, Jon".
 * A name in address says who is spoken to, not what is said about them.
 *
 * @example
 * isVocative("Thanks, Melanie", 8, 7); // true
 * isVocative("Melanie painted a horse", 0, 7); // false
 */
export function isVocative(clause: string, start: number, length: number): boolean {
  const before = clause.slice(0, start);
  const after = clause.slice(start + length);
  if (/^\s*(?:[,!?.]|$)/.test(after) && (before.trim() === "" || /,\s*$/.test(before))) return true;
  return GREETINGS.test(before) && /^\s*(?:[,!?.]|$)/.test(after);
}
