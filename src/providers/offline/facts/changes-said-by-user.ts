import { type ChangeReader, employerLeft, gerund, namesIn, thingOf, type VerbReading } from "./change-reading.js";
import { JOB, LAPSE, SCHOOLING, THING_END } from "./change-words.js";
import { properPhrase } from "./phrases.js";

/**
 * The forms of change only the user can say of themselves — a state they no longer hold, a job,
 * studies, a place, a thing or a habit they left, a taste that went or came — read in this order
 * after `SAID_OF_ANYONE`, the first that is a verb's own ending its reading (state-changes.ts).
 */
export const SAID_BY_USER: readonly ChangeReader[] = [
  stateEnded,
  doneWith,
  tieEnded,
  jobLeft,
  studiesEnded,
  placeLeft,
  sold,
  tasteEnded,
  tasteBegan,
  membershipCancelled,
  stopped,
  lapsed,
  usedTo,
];

/** "I am not single any more", "I do not consider myself religious these days": a state of the user's that ended. */
function stateEnded({ verb, complement, noMore }: VerbReading) {
  const considers = verb.head === "consider" && /\bmyself\s+(.+)$/i.exec(`${verb.lemma} ${verb.after}`)?.[1];
  if (!((copula(verb) && !/^with\s/i.test(verb.after)) || considers) || !noMore) return undefined;
  const state = (considers || complement.replace(/^(?:not|no longer)\s+/i, ""))
    .replace(/\b(?:any ?more|these days|nowadays|actually|really|officially|though)\b.*$/i, "")
    .replace(/[,;.!]+$/, "")
    .trim();
  return state && state.split(/\s+/).length <= 4 ? [{ change: "state-ended" as const, thing: state.replace(/^(?:an?|the)\s+/i, "") }] : [];
}

/** "I am done with dating apps", "I'm finished with running": a thing given up. */
function doneWith({ verb, complement }: VerbReading) {
  if (
    !copula(verb) ||
    verb.negative ||
    !/^(?:done|finished|through) with\s+(?!it\b|that\b|this\b|work\b|the (?:kitchen|dishes|washing)\b)/i.test(complement)
  )
    return undefined;
  const thing = thingOf(complement.replace(/^(?:done|finished|through) with\s+/i, ""));
  return thing ? [{ change: "cessation" as const, thing }] : [];
}

/**
 * "I am no longer with the council", "I'm not with Sam any more": a tie that ended — with an
 * employer, or with a partner by name; each closes only a held fact that names it.
 */
function tieEnded({ verb, clause, noMore }: VerbReading) {
  if (verb.head !== "be" || !noMore || !/^with\s+\S/i.test(verb.after)) return undefined;
  const tie = verb.after
    .replace(/^with\s+/i, "")
    .replace(THING_END, "")
    .replace(/^the\s+/i, "")
    .trim();
  const names = namesIn(tie, clause);
  return [
    ...(names.length > 0 ? [{ change: "breakup" as const, names }] : []),
    ...(tie ? [{ change: "job-left" as const, mentions: tie }] : []),
  ];
}

/** Leaving a job: "I quit my job", "I got let go from Walmart", "I handed in my notice at Spotify", "I retired". */
function jobLeft({ verb, acted }: VerbReading) {
  const leaves =
    /^(?:quit|leave|resign|let go|lay off|fire|hand in|retire)\b/.test(verb.lemma) ||
    (verb.head === "step" && /^down (?:from|as)\b/i.test(verb.after));
  const ofAJob =
    verb.lemma.startsWith("retire") ||
    JOB.test(acted) ||
    /^(?:let go|lay off|fire)/.test(verb.lemma) ||
    /^(?:from|at)\s+\p{Lu}/u.test(verb.after) ||
    verb.head === "step" ||
    /^resign/.test(verb.lemma);
  return leaves && ofAJob ? [{ change: "job-left" as const, ...employerLeft(verb.after) }] : undefined;
}

/** Schooling that ended: "I graduated", "I finished law school", "I dropped out of college", "I quit my PhD", "I qualified as a nurse". */
function studiesEnded({ verb, acted }: VerbReading) {
  if (
    !/^(?:graduate|finish|complete|drop out|quit|leave|qualify)\b/.test(verb.lemma) ||
    !(verb.lemma.startsWith("graduate") || verb.lemma.startsWith("qualify") || SCHOOLING.test(acted))
  )
    return undefined;
  // "I qualified as a nurse": the training is what finished; the new job is the work rule's.
  return [{ change: "studies-ended" as const, thing: verb.head === "qualify" ? "their training" : (thingOf(acted) ?? "studies") }];
}

/** A place left: "we left Queens in March", "got out of Brooklyn". */
function placeLeft({ verb }: VerbReading) {
  const getsOut = /^(?:get|got) out$/.test(verb.lemma) || (verb.head === "get" && /^out of\s/i.test(verb.after));
  if (verb.lemma !== "leave" && verb.lemma !== "move away" && verb.lemma !== "move out" && !getsOut) return undefined;
  const place = properPhrase(verb.after.replace(/^(?:out\s+)?(?:from|of)\s+/i, ""));
  return place ? [{ change: "place-left" as const, mentions: place }] : [];
}

/** Selling or parting with a thing: "I sold the Mazda", "we got rid of the caravan", "I wrote off the Civic". */
function sold({ verb }: VerbReading) {
  if (!/^(?:sell|flog|offload|auction|get rid|give away|trade in|part with|scrap|total|write off)\b/.test(verb.lemma)) return undefined;
  const thing = thingOf(verb.after.replace(/^of\s+/i, ""));
  return thing && !/^(?:weight|track|interest|touch|count|sleep|time|money)$/i.test(thing) ? [{ change: "sale" as const, thing }] : [];
}

/** Tastes that went: "I have gone off sushi", "I am so over country music", "I've grown out of grime". */
function tasteEnded({ verb }: VerbReading) {
  if (
    !/^(?:go off|fall out|lose)$/.test(verb.lemma) &&
    !(verb.lemma === "grow out" && /^of\s/i.test(verb.after)) &&
    !(verb.lemma === "be" && /^(?:so |totally |completely )?over\s+(?!it\b|here\b|there\b|the moon\b)/i.test(verb.after))
  )
    return undefined;
  const thing = thingOf(verb.after.replace(/^(?:so |totally |completely )?over\s+|^of love with\s+|^interest in\s+|^of\s+/i, ""));
  // "I've lost interest" names nothing: the clause beside it says what ("I haven't climbed in a year").
  return thing && (verb.lemma !== "lose" || /^interest in\b/i.test(verb.after)) ? [{ change: "taste-ended" as const, thing }] : [];
}

/** A taste that came: "I came round to running", "I've actually come round to olives" (compromise may leave "round" after the verb). */
function tasteBegan({ verb }: VerbReading) {
  const cameRound = verb.head === "come" && /^(?:a)?round (?:on|to)\s/i.test(verb.after);
  const after = cameRound ? verb.after.replace(/^(?:a)?round\s+/i, "") : verb.after;
  if (!(cameRound || /^(?:come around|come round|grow)$/.test(verb.lemma)) || !/^(?:on|to)\s|^to (?:like|love|enjoy)\s/i.test(after))
    return undefined;
  const thing = thingOf(after.replace(/^(?:on|to)\s+(?:like|love|enjoy)?\s*/i, ""));
  return thing ? [{ change: "taste-began" as const, thing }] : [];
}

/** "I cancelled my gym membership": what the membership was for is given up. */
function membershipCancelled({ verb }: VerbReading) {
  const membership = /^(?:my|our|the) (.+?) (?:membership|subscription|lessons|classes|season ticket)\b/i.exec(verb.after)?.[1];
  if (!/^(?:cancel|end|let lapse)$/.test(verb.lemma) || !membership) return undefined;
  const thing = thingOf(membership);
  return thing ? [{ change: "cessation" as const, thing }] : [];
}

/** Stopping a habit: "I stopped smoking", "I gave up on Japanese", "I kicked the habit" — not "I stopped by the shop". */
function stopped({ verb, rest, acted }: VerbReading) {
  if (!/^(?:stop|quit|give up|kick|drop|cut out|ditch|abandon|bin|chuck|pack in)\b/.test(verb.lemma)) return undefined;
  if (
    /^(?:stop|drop) (?:by|in|over|off)\b/.test(verb.lemma) ||
    (!rest && /^(?:by|at|in|for|to|over|off|into|here|there|and)\b/i.test(verb.after))
  )
    return [];
  const thing = thingOf(acted.replace(/^(?:on|with)\s+/i, ""));
  return thing && !JOB.test(thing) ? [{ change: "cessation" as const, thing }] : [];
}

/** "I do not play tennis any more", "I no longer take the bus", "I have not climbed in over a year". */
function lapsed({ verb, acted, anyMore }: VerbReading) {
  const notSince = verb.negative && verb.perfect && LAPSE.test(verb.after);
  if (
    !(verb.negative || verb.noLonger) ||
    !(anyMore || notSince) ||
    /^(?:be|have|like|love|enjoy|live|work|drink|eat|smoke|vape)$/.test(verb.lemma) ||
    // "I don't do my morning runs any more" names its thing; "I don't do that any more" does not.
    (verb.lemma === "do" && !/^(?:my|the|any|our)\s/i.test(verb.after))
  )
    return undefined;
  // "I have not climbed in over a year": the duration is not the thing; the verb is.
  const object = thingOf(acted.replace(LAPSE, "").replace(/\b(?:any ?more|these days|nowadays)\b.*$/i, ""));
  return [{ change: "cessation" as const, thing: object ?? gerund(verb.lemma) }];
}

/** "I used to go horseback riding", "I used to compete". */
function usedTo({ verb, acted }: VerbReading) {
  if (!verb.usedTo || verb.head === "be" || verb.head === "think" || verb.head === "feel") return undefined;
  const thing = thingOf(acted);
  return thing || verb.after === "" ? [{ change: "past" as const, thing: thing ?? gerund(verb.lemma) }] : undefined;
}

/** compromise reads "am not married" as the verb "marry": a copula in the verb's text makes it a state. */
const copula = (verb: VerbReading["verb"]) => verb.head === "be" || /^(?:am|is|are|was|were)\b/i.test(verb.text);
