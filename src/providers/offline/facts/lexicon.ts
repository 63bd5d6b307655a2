import nlp from "compromise";
import { thirdPerson } from "./conjugation.js";
import { ATTITUDE_VERBS, CONSUMING_VERBS } from "./word-classes.js";

let registered = false;

/**
 * Tells compromise that the closed classes' verbs are verbs in every form the reader writes or
 * reads ("adores", "vapes" are otherwise unknown to it), once per process: its lexicon is global.
 */
export function registerWordClasses(): void {
  if (registered) return;
  registered = true;
  const verbs = [...Object.keys(ATTITUDE_VERBS), ...CONSUMING_VERBS];
  nlp.addWords(
    Object.fromEntries(
      verbs.flatMap((verb) => [
        [verb, "Infinitive"],
        [thirdPerson(verb), "PresentTense"],
      ]),
    ),
  );
}
