/** Wh-words, auxiliaries and the asker's subject pronouns: the closed classes a question is turned around by. */
const WH = "what|which|who|whom|whose|where|when|how|why";
const AUX = "do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should|shall|may|might|must";
/** The asker, or something the asker has ("my daughter", "our landlord"): a possessive begins the subject. */
const SUBJECT = "i|we|my|our";
const DO_SUPPORT = /^(?:do|does|did)$/i;
const POSSESSIVE = /^(?:my|our)$/i;

/** "Which town do I …": the wh-word, the words of its phrase up to the auxiliary, the auxiliary, the asker, the rest. */
const WH_QUESTION = new RegExp(`^(?:${WH})((?:\\s+(?!(?:${AUX})\\b)[\\w'-]+)*)\\s+(${AUX})\\s+(${SUBJECT})\\b(.*)$`, "i");
/** "Am I …", "Do we …": a yes-no question, the auxiliary first. */
const YES_NO = new RegExp(`^(${AUX})\\s+(${SUBJECT})\\b(.*)$`, "i");
/** "What's our …": the asker's possession as the subject, "is" joined to the wh-word ("What is my …" is a `WH_QUESTION`). */
const OF_POSSESSION = new RegExp(`^(?:${WH})'s\\s+(my|our)\\b(.*)$`, "i");
/**
 * A form of "be": after it, a "like" that ends a wh-question ("What is my flat like?") is no verb
 * but the preposition whose object is the wh-word, and it goes with it. One with an object of its
 * own ("Am I like my dad?") stays.
 */
const BE = /^(?:am|is|are|was|were)$/i;
const STRANDED_LIKE = /\s+like$/i;

/**
 * A question about the asker turned into the statement that would answer it, in the asker's own
 * words and with the asked-for noun kept: "Which town am I living in?" → "I am living in town",
 * "What bike do I ride?" → "I ride bike", "Am I still renting?" → "I am still renting". What a
 * user said of themselves is a statement, and a statement lies nearer another statement than a
 * question does: the asker's own statements are found by this form's vector. Only subject–auxiliary
 * inversion, do-support and the wh-word are undone (closed classes), so no content word is added
 * or lost; undefined when the question is not one the asker is the subject of. When the subject
 * is something of the asker's ("Which school does my son go to?"), the auxiliary is left out:
 * where its noun phrase ends cannot be told from closed classes, and the auxiliary says nothing.
 *
 * @example
 * questionAsStatement("Where do we keep the spare keys?"); // "we keep the spare keys"
 */
export function questionAsStatement(question: string): string | undefined {
  const text = question.trim().replace(/[?!.\s]+$/, "");
  const statement = (subject: string, auxiliary: string, rest: string, asked = "") =>
    [
      subject.toLowerCase() === "i" ? "I" : subject.toLowerCase(),
      DO_SUPPORT.test(auxiliary) || POSSESSIVE.test(subject) ? "" : auxiliary.toLowerCase(),
      rest.trim(),
      asked.trim(),
    ]
      .filter((part) => part.length > 0)
      .join(" ");
  const wh = WH_QUESTION.exec(text);
  if (wh) {
    const auxiliary = wh[2] as string;
    const rest = wh[4] as string;
    return statement(wh[3] as string, auxiliary, BE.test(auxiliary) ? rest.replace(STRANDED_LIKE, "") : rest, wh[1]);
  }
  const yesNo = YES_NO.exec(text);
  if (yesNo) return statement(yesNo[2] as string, yesNo[1] as string, yesNo[3] as string);
  const possession = OF_POSSESSION.exec(text);
  if (possession) return statement(possession[1] as string, "is", (possession[2] as string).replace(STRANDED_LIKE, ""));
  return undefined;
}
