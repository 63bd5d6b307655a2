import { type ChangeReader, employerLeft, namesIn, relationsIn, thingOf, type VerbReading } from "./change-reading.js";
import {
  CAME_TO_AN_END,
  DEATH_IDIOM,
  FOR_GOOD,
  FOR_NOW,
  HUNG_UP_FOR_GOOD,
  LOST_ITS_PULL,
  NEVER_FOUND,
  NEW_KEEPER,
  NOT_MINE,
  PARTNER_WORDS,
  RULED_OUT,
  SCHOOLING,
} from "./change-words.js";
import { looksLikeName } from "./phrases.js";
import type { VerbPhrase } from "./verb-phrases.js";

/**
 * The forms of change a clause may say of anyone — of a thing ("tennis is off the table"), an
 * animal or a person ("Miso didn't make it"), or by the user — read in this order, the first that
 * is a verb's own ending its reading (state-changes.ts).
 */
export const SAID_OF_ANYONE: readonly ChangeReader[] = [
  rehomed,
  saleWentThrough,
  didNotMakeIt,
  givenAwayOrLostForGood,
  deathSaidGently,
  death,
  breakUp,
  cameToAnEnd,
  ruledOut,
  tasteGone,
  hungUpForGood,
  jobLeftByAnyone,
  stolen,
  studiesDone,
];

/**
 * A thing lost, stolen or broken, read beside every other form: "my Omega got nicked", "it is dead
 * for good", said of the thing before the verb or of the last thing of the user's named.
 */
export function lostThing(reading: VerbReading): string | undefined {
  const { verb, byUser, complement, clause } = reading;
  const forGood = FOR_GOOD.test(clause.message);
  const gone =
    (/^(?:steal|nick|pinch|nab|swipe)$/.test(verb.head) && /\b(?:got|get|was|were|been|be)\b/i.test(verb.text)) ||
    (verb.head === "be" && !verb.negative && /^(?:stolen|totalled|written off)\b/i.test(complement)) ||
    (forGood && verb.head === "be" && !verb.negative && /^(?:dead|broken|bust|busted|ruined|toast|kaput)\b/i.test(complement)) ||
    (forGood && /^(?:die|break|conk out)$/.test(verb.lemma) && !byUser);
  return gone ? reading.subjectThing() : undefined;
}

/** "My Vespa has a new owner", "Biscuit went to a new home": gone to someone else. */
function rehomed({ verb, byUser, clause, subjectThing }: VerbReading) {
  if (byUser || !NEW_KEEPER.test(`${verb.lemma} ${verb.after}`)) return undefined;
  // A name may be a pet's ("Pip") or a make ("my Vespa"): the user's facts tell which.
  const names = namesIn(verb.before, clause);
  const thing = subjectThing();
  if (names.length === 0 && !thing) return undefined;
  return [
    ...(names.length > 0 ? [{ change: "rehomed" as const, names, relations: relationsIn(verb.before) }] : []),
    ...(thing ? [{ change: "sale" as const, thing }] : []),
  ];
}

/** "The sale of the Lisbon flat went through". */
function saleWentThrough({ verb }: VerbReading) {
  const sold = /\bsale of (?:the |my |our )?(.+)$/i.exec(verb.before);
  if (!sold || !/^(?:go through|complete|close|finalise|finalize)$/.test(verb.lemma)) return undefined;
  const thing = thingOf(sold[1] as string);
  return thing ? [{ change: "sale" as const, thing }] : [];
}

/** "Miso didn't make it (through the surgery)": said of someone else, a death. */
function didNotMakeIt({ verb, byUser, clause }: VerbReading) {
  if (verb.head !== "make" || !verb.negative || byUser || !/^it(?:\s+through\b|$)/i.test(verb.after)) return undefined;
  return someone("death", verb.before, clause);
}

/** "I gave my Kindle to my niece", "lost my Kindle on the train, never found it": the thing is gone. */
function givenAwayOrLostForGood({ verb, byUser, clause }: VerbReading) {
  if (!byUser) return undefined;
  const givenTo = verb.head === "give" && /^(?:my|our|the) .+? to (?:my|our|a|an|the|\p{Lu})/u.test(verb.after);
  const lostForGood =
    verb.head === "lose" && /^(?:my|our) /i.test(verb.after) && relationsIn(verb.after).length === 0 && NEVER_FOUND.test(clause.message);
  if (!givenTo && !lostForGood) return undefined;
  const thing = thingOf(verb.after.replace(/\s+to\s+.*$/i, ""));
  return thing ? [{ change: "sale" as const, thing }] : [];
}

/** Death in the words people use to soften it: "Mochi crossed the rainbow bridge", "Nan is no longer with us". */
function deathSaidGently({ verb, byUser, clause }: VerbReading) {
  if (byUser || !(DEATH_IDIOM.test(`${verb.lemma} ${verb.after}`) || (verb.head === "be" && noLongerWithUs(verb)))) return undefined;
  return someone("death", verb.before, clause);
}

/** Death: "Rufus passed away", "we lost grandpa Joe", "we had to put Mittens down" — not "passed the exam", "lost my keys". */
function death({ verb, byUser, clause }: VerbReading) {
  if (!/^(?:die|pass away|pass|put down|put to sleep|put|lose|bury)$/.test(verb.lemma) && !/^(?:die|pass away)\b/.test(verb.lemma))
    return undefined;
  const aboutWhom = /^(?:put|lose|bury)/.test(verb.lemma) ? verb.after : verb.before;
  const names = namesIn(aboutWhom, clause);
  const relations = relationsIn(aboutWhom);
  const putDown = verb.lemma.startsWith("put") ? /\bdown\b|\bto sleep\b/i.test(verb.after) : true;
  const loses = !/^(?:put|lose|bury)/.test(verb.lemma) || byUser;
  if (
    !putDown ||
    !loses ||
    (names.length === 0 && relations.length === 0) ||
    (verb.head === "pass" && /\b(?:the|an?) (?:exam|test|bar|course|interview)/i.test(verb.after))
  )
    return undefined;
  if (verb.head === "lose" && /^(?:my |our |the )?(?:job|keys?|phone|wallet|weight|track|interest|touch|count)\b/i.test(verb.after))
    return [];
  return [{ change: "death" as const, names, relations }];
}

/**
 * Break-up: "Sam and I called it quits", "I broke up with Jo", "we are getting divorced", "it's
 * over between us", "we are not together any more", and the partings of `parting` — said by the
 * user, or by the partner's name ("Priya called off the engagement"), which ends only a tie with
 * that name (change-rules).
 */
function breakUp({ verb, byUser, clause, complement, noMore }: VerbReading) {
  // "It's over between us" is said of "it": "us" is the user and the partner.
  const overBetweenUs =
    verb.head === "be" &&
    (/^over between us\b/i.test(complement) || (noMore && /^together\b/i.test(complement) && /\b(?:we|and I)\s*$/i.test(verb.before)));
  const parted = overBetweenUs || parting(verb, clause.sentence);
  if (!parted && !/^(?:break up|split up|split|divorce|separate|call|dump|end)$/.test(verb.lemma) && !/^break up\b/.test(verb.lemma))
    return undefined;
  const quits = parted || verb.lemma !== "call" || /^it quits\b/i.test(verb.after);
  const ends = verb.lemma !== "end" || /^(?:things|it|our (?:relationship|marriage))\b/i.test(verb.after);
  const byName = !byUser && parted && namesIn(verb.before, clause).length > 0;
  if (!quits || !ends || !(byUser || overBetweenUs || byName || /\bme\b/i.test(verb.after))) return undefined;
  const pair = /(\p{Lu}[\p{L}'-]+) and (?:I|me)\b/u.exec(clause.sentence)?.[1];
  const names = [...new Set([...namesIn(`${verb.before} ${verb.after}`, clause), ...(pair && looksLikeName(pair, clause) ? [pair] : [])])];
  const relations = relationsIn(`${verb.before} ${verb.after}`).filter((word) => PARTNER_WORDS.test(word));
  return [{ change: "breakup" as const, names, relations }];
}

/** A thing said to have come to its end: "the pottery course wrapped up", "the book club has ended" — not "ended early today". */
function cameToAnEnd({ verb, clause, subject }: VerbReading) {
  const thing = subject();
  if (!thing || verb.negative || !CAME_TO_AN_END.test(`${verb.lemma} ${verb.after}`) || FOR_NOW.test(clause.text)) return undefined;
  return [{ change: "cessation" as const, thing }];
}

/** "Tennis is off the table for good", "smoking is a thing of the past". */
function ruledOut({ predicate, subject }: VerbReading) {
  const thing = subject();
  return thing && RULED_OUT.test(predicate) ? [{ change: "cessation" as const, thing }] : undefined;
}

/** A taste said of the thing: "horror films don't do it for me", "sushi isn't my thing any more", "has lost its appeal", "bores me now". */
function tasteGone({ verb, noMore, predicate, subject }: VerbReading) {
  const thing = subject();
  const gone =
    (verb.head === "do" && verb.negative && /^it for (?:me|us)\b/i.test(verb.after)) ||
    (noMore && NOT_MINE.test(predicate)) ||
    (verb.head === "lose" && LOST_ITS_PULL.test(verb.after)) ||
    // compromise reads "bore" as the past of "bear".
    (/^(?:bore|bear)$/.test(verb.head) && /^(?:me|us)\b.*\b(?:now|these days|nowadays|any ?more)\b/i.test(verb.after));
  return thing && gone ? [{ change: "taste-ended" as const, thing }] : undefined;
}

/** "Hung up my white coat after 30 years": the job's clothes put away for good, not a coat on a hook. */
function hungUpForGood({ verb, byUser, clause }: VerbReading) {
  return byUser && verb.lemma === "hang up" && /^my\s/i.test(verb.after) && HUNG_UP_FOR_GOOD.test(clause.message)
    ? [{ change: "job-left" as const }]
    : undefined;
}

/** A job left, whoever says it: "they let me go", "(I) got made redundant", "finished my last shift". */
function jobLeftByAnyone({ verb, byUser }: VerbReading) {
  const left =
    (verb.head === "let" && /^me go\b/i.test(verb.after)) ||
    (verb.head === "make" && /^redundant\b/i.test(verb.after) && (byUser || /\b(?:got|was|been)$/i.test(verb.before))) ||
    (/^(?:finish|work|do|pull)$/.test(verb.head) &&
      byUser &&
      /^(?:my|the) (?:last|final) (?:shift|day|route|week)\b(?!\s+of\s+(?!work\b))/i.test(verb.after));
  return left ? [{ change: "job-left" as const, ...employerLeft(verb.after) }] : undefined;
}

/** "Someone stole my PlayStation". */
function stolen({ verb }: VerbReading) {
  if (verb.lemma !== "steal" || !/^(?:my|our)\s/i.test(verb.after)) return undefined;
  const thing = thingOf(verb.after);
  return thing ? [{ change: "sale" as const, thing }] : [];
}

/** Studies done, said of the degree as often as by the user: "passed my viva", "that is the PhD done". */
function studiesDone({ verb, clause }: VerbReading) {
  const done =
    (/^(?:pass|defend)$/.test(verb.head) && /^my (?:viva|defen[cs]e|finals|final exams|dissertation|thesis)\b/i.test(verb.after)) ||
    (verb.head === "be" && /^(?:the|my) \S+(?: \S+)? (?:done|finished|over)\b/i.test(verb.after) && SCHOOLING.test(verb.after));
  if (!done) return undefined;
  const degree = /\b(?:PhD|doctorate|masters?|MBA|MSc|MA|BSc|BA|degree)\b/i.exec(clause.sentence)?.[0];
  return [{ change: "studies-ended" as const, thing: degree ? `their ${degree}` : "studies" }];
}

/** Who the words before a verb name, as a change of this class — nothing read when they name no one. */
function someone(change: "death", before: string, clause: VerbReading["clause"]) {
  const names = namesIn(before, clause);
  const relations = relationsIn(before);
  return names.length > 0 || relations.length > 0 ? [{ change, names, relations }] : undefined;
}

/** "is no longer with us", "is not with us any more". */
const noLongerWithUs = (verb: VerbPhrase) =>
  (verb.noLonger || verb.negative) && /^(?:(?:no longer|not)\s+)?with us\b(?!\s+(?:at|on|in|for)\b)/i.test(verb.after);

/**
 * A parting said without "break up": "we called off the engagement", "Aisha and I went our separate
 * ways", "Tomás and I are done" — not "Tom and I are done with the kitchen".
 */
function parting(verb: VerbPhrase, sentence: string): boolean {
  return (
    (verb.lemma === "call off" && /^(?:the|our|my) (?:engagement|wedding|relationship|marriage)\b/i.test(verb.after)) ||
    (verb.head === "go" && /^(?:our|their) separate ways\b/i.test(verb.after)) ||
    (verb.head === "be" &&
      !verb.negative &&
      /^(?:done|over|finished|through)(?:\s+(?:for good|now|at last))?$/i.test(verb.after) &&
      /\band (?:I|me)\b/.test(sentence))
  );
}
