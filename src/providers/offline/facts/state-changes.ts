import nlp from "compromise";
import { type ChangeReader, type FoundChange, lastPhrase, type StateChange, thingOf, type VerbReading } from "./change-reading.js";
import { SINCE_MY_LAST } from "./change-words.js";
import { SAID_BY_USER } from "./changes-said-by-user.js";
import { lostThing, SAID_OF_ANYONE } from "./changes-said-of-anyone.js";
import type { Clause } from "./clauses.js";
import { saidOfUser, type VerbPhrase, verbPhrases } from "./verb-phrases.js";

export type { ChangeClass, StateChange } from "./change-reading.js";

/**
 * Reads the changes of state of one asserted clause from its verbs: compromise gives each verb's
 * lemma, negation and aspect, and the class follows from the lemma and what it acts on — to stop
 * or give up a thing (cessation), not any more / no longer / not in a year (cessation), used to
 * (past), to die or be put down (death), to break up or divorce (breakup), to sell or lose a thing
 * (sale), to graduate, finish or drop out of schooling (studies-ended), to quit, leave or be let go
 * from a job (job-left), to leave a place (place-left), to go off or be over a thing, or to come
 * round to it (taste). Each form is a reader of its own (changes-said-of-anyone.ts,
 * changes-said-by-user.ts). Resolution against the user's current facts is the caller's.
 *
 * @example
 * stateChanges(clauseOf("Three months ago I finally kicked the habit and stopped smoking"))
 * // → [{ change: "cessation", thing: "smoking", … }]
 */
export function stateChanges(clause: Clause): StateChange[] {
  const read = READ.get(clause) ?? readChanges(clause);
  READ.set(clause, read);
  return read;
}

/** The readers of what the user says of themselves: the forms anyone may say first. */
const SAID_BY_ANYONE_THEN_USER: readonly ChangeReader[] = [...SAID_OF_ANYONE, ...SAID_BY_USER];

/** Each clause is read once, though more than one rule asks (the family rules ask who died). */
const READ = new WeakMap<Clause, StateChange[]>();

function readChanges(clause: Clause): StateChange[] {
  const found: StateChange[] = [];
  const verbs = verbPhrases(clause.text);
  const record = (verb: VerbPhrase, changes: FoundChange[]) =>
    found.push(...changes.map((change) => ({ names: [], relations: [], verb, ...change })));
  // "It has been six months since my last cigarette": what the user last had is what they stopped.
  const sinceLast = SINCE_MY_LAST.exec(clause.text)?.[1];
  if (sinceLast && verbs[0]) {
    const thing = nlp(sinceLast.toLowerCase()).nouns().toPlural().text() || sinceLast.toLowerCase();
    record(verbs[0], [{ change: "cessation", thing }]);
  }
  let previousByUser = false;
  // The last thing of the user's named in the clause, for "it" after it: "Dropped my Kindle in the bath and it is dead".
  let lastOwned: string | undefined;
  for (const verb of verbs) {
    // "I have to give up sugar", "I need to quit": an obligation, not yet a change.
    if (
      /\b(?:have|has|need|needs|ought|want|wants) to\b/i.test(verb.text) ||
      /\b(?:have|has|need|needs|ought|want|wants) to$/i.test(verb.before)
    )
      continue;
    // Verbs joined by "and" share their subject: "I finally kicked the habit and stopped smoking".
    const byUser: boolean = saidOfUser(verb.before) || (previousByUser && /(?:\band|\bor|\bthen|,)\s*$/i.test(verb.before));
    previousByUser = byUser;
    const owned = /\b(?:my|our)\s+(.+)$/i.exec(verb.after.split(/\s+(?:in|into|and|from|to|with|while)\s+|[,;]/)[0] ?? "")?.[1];
    if (owned) lastOwned = thingOf(owned);
    const reading = readingOf(verb, clause, byUser, () => lastOwned);
    const gone = lostThing(reading);
    if (gone) record(verb, [{ change: "sale", thing: gone }]);
    for (const read of byUser ? SAID_BY_ANYONE_THEN_USER : SAID_OF_ANYONE) {
      const changes = read(reading);
      if (changes === undefined) continue;
      record(verb, changes);
      break;
    }
  }
  // Two verbs may read one change ("passed my viva, so that is the PhD done"): once is enough.
  return found.filter(
    (change, index) => found.findIndex((other) => other.change === change.change && other.thing === change.thing) === index,
  );
}

/** What the readers ask of one verb, worked out once (the subject's thing only when asked: it parses again). */
function readingOf(verb: VerbPhrase, clause: Clause, byUser: boolean, lastOwned: () => string | undefined): VerbReading {
  // "stop smoking" → the gerund is the thing; "give up" → a particle, no thing.
  // compromise sometimes keeps the gerund in the verb's text only: "have given up climbing" → "give up".
  const trailing =
    /(?:\s\p{L}+ing)+$/u
      .exec(verb.text.replace(/[,;.!]+$/, ""))?.[0]
      .trim()
      .toLowerCase() ?? "";
  const rest =
    verb.lemma
      .split(/\s+/)
      .slice(1)
      .filter((word) => /ing$/.test(word))
      .join(" ") || trailing;
  const anyMore = /\b(?:any ?more|these days|nowadays)\b/i.test(clause.text) || verb.noLonger;
  let subject: { thing: string | undefined } | undefined;
  return {
    verb,
    clause,
    byUser,
    rest,
    // The verb's own comma ends its object: "have given up climbing, my fingers …".
    acted: `${rest ? `${rest}${/[,;]$/.test(verb.text.trim()) ? "," : ""} ` : ""}${verb.after}`,
    complement: `${verb.text.replace(/^(?:is|are|was|were|am|be|been|has been|have been)\b\s*/i, "")} ${verb.after}`
      .replace(/^(?:not|no longer)\s+/i, "")
      .trim(),
    // compromise may read "is off" as one verb: what is said of the subject starts after "is".
    predicate:
      verb.head === "be"
        ? verb.after
        : /^(?:is|are|was|were)\b/i.test(verb.text)
          ? `${verb.text.replace(/^\S+\s*/, "")} ${verb.after}`.trim()
          : "",
    anyMore,
    noMore: verb.noLonger || (verb.negative && anyMore),
    subject: () => {
      subject ??= { thing: byUser ? undefined : thingOf(lastPhrase(verb.before), clause) };
      return subject.thing;
    },
    subjectThing: () => {
      const said = lastPhrase(verb.before).replace(/^.*\b(?:my|our|the)\s+/i, "");
      return /^(?:it|that|this|the thing)$/i.test(said) ? lastOwned() : thingOf(said);
    },
  };
}
