import nlp from "compromise";

/** A verb in the third person singular: "drive" → "drives", "go" → "goes", "try" → "tries". */
export const thirdPerson = (verb: string) =>
  /(?:s|sh|ch|x|z|o)$/.test(verb) ? `${verb}es` : /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ies` : `${verb}s`;

/** A verb's gerund, by compromise's conjugation, for a habit named by its verb: "knit" → "knitting", "tie" → "tying". */
export function gerund(verb: string): string {
  const doc = nlp(verb);
  doc.verbs().toGerund();
  return doc.text().replace(/^(?:is|am|are)\s+/i, "") || verb;
}
