import nlp from "compromise";
import {
  CAME_TO_AN_END,
  DEATH_IDIOM,
  DISCOURSE,
  FOR_GOOD,
  FOR_NOW,
  HUNG_UP_FOR_GOOD,
  IS_RELATION,
  JOB,
  LAPSE,
  LIGHT,
  LOST_ITS_PULL,
  NEVER_FOUND,
  NEW_KEEPER,
  NOT_MINE,
  PARTNER_WORDS,
  RELATION_WORDS,
  RULED_OUT,
  SCHOOLING,
  SINCE_MY_LAST,
  THING_END,
} from "./change-words.js";
import type { Clause } from "./clauses.js";
import { looksLikeName, objectPhrase, properPhrase } from "./phrases.js";
import { saidOfUser, type VerbPhrase, verbPhrases } from "./verb-phrases.js";

/** The classes of statement that end, change or correct something the user said before. */
export type ChangeClass =
  | "cessation"
  | "past"
  | "death"
  | "rehomed"
  | "breakup"
  | "sale"
  | "studies-ended"
  | "job-left"
  | "place-left"
  | "state-ended"
  | "taste-ended"
  | "taste-began";

/**
 * A change of state read from one clause: what ended (a thing, people or animals by name or
 * relation, an attribute of the profile), and the words of the statement for the record.
 */
export interface StateChange {
  change: ChangeClass;
  /** The thing that ended: "smoking", "the Mazda", "Japanese". */
  thing?: string;
  names: string[];
  /** Relation words ("grandpa", "dog") when no name is given. */
  relations: string[];
  /** For job-left / place-left / studies-ended: a name the held value must mention ("Spotify"), if said. */
  mentions?: string;
  verb: VerbPhrase;
}

/** Whether a capitalised word is, written in lower case, an ordinary word and not a name or a place. */
function commonWord(word: string): boolean {
  const tags = new Set((nlp(word.toLowerCase()).json({ terms: { tags: true } }) as { terms: { tags: string[] }[] }[])[0]?.terms[0]?.tags);
  return !["ProperNoun", "Place", "Person", "FirstName", "Organization", "Country", "City"].some((tag) => tags.has(tag));
}

/** The last phrase of a clause's text before a verb: "My knee is shot so tennis" → "tennis". */
const lastPhrase = (before: string) =>
  before
    .split(/\b(?:so|and|but|because|since|now that|which means|that means)\b|[,;:]/i)
    .pop()
    ?.trim() ?? "";

/** The thing a verb acts on, without light verbs, articles or the rest of the clause: "taking the bus since…" → "bus". */
function thingOf(raw: string, clause?: Clause): string | undefined {
  let text = raw
    .trim()
    .replace(/^[,;:]\s*/, "")
    .replace(DISCOURSE, "");
  // A subject that opens the sentence is capitalised for that reason alone: "Horror films don't…".
  const first = /^\p{Lu}[\p{Ll}'-]*/u.exec(text)?.[0];
  if (clause && first && text === raw.trim() && commonWord(first)) text = `${first.toLowerCase()}${text.slice(first.length)}`;
  for (let pass = 0; pass < 4 && LIGHT.test(text); pass += 1) text = text.replace(LIGHT, "");
  const phrase = objectPhrase((text.split(/\s*[,;—–]\s*/)[0] ?? "").replace(THING_END, ""));
  return phrase && !/^(?:it|that|this|them|the habit|habit|one|all|everything)$/i.test(phrase) ? phrase : undefined;
}

function namesIn(text: string, clause: Clause): string[] {
  return (
    [...text.matchAll(/\b\p{Lu}[\p{L}'-]+\b/gu)]
      .map((match) => match[0])
      .filter(
        (word) =>
          !/^(?:I|We|My|Our|The|A|An|Sorry|Actually|Last|This|Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday)$/.test(word),
      )
      // "Grandad passed away": a relation said as a name is the relation.
      .filter((word) => !IS_RELATION.test(word))
      .filter((word) => looksLikeName(word, clause))
  );
}
/**
 * The relation words of a text that are the user's: "my cat", "our dog", "Grandad", "the cat" —
 * not "my neighbour's cat", "her dog" or "a friend's hamster", which are someone else's, nor
 * "my mum's friend", who is not the mum.
 */
const relationsIn = (text: string) =>
  [...text.matchAll(RELATION_WORDS)]
    .filter((match) => !SOMEONE_ELSES.test(text.slice(0, match.index)))
    // "my mum's friend": the relation owns who is meant.
    .filter((match) => !/^'s\b/.test(text.slice(match.index + match[0].length)))
    .map((match) => (match[1] as string).toLowerCase());
/** What makes the relation word after it someone else's: a possessive other than the user's. */
const SOMEONE_ELSES =
  /(?:\b(?:his|her|their|your|its|a|an)\s+(?:\p{L}+\s+)?|\p{L}'s\s+(?:\p{L}+\s+)?|\bof (?:a|my|our|his|her) \p{L}+\s+)$/iu;

/**
 * Reads the changes of state of one asserted clause from its verbs: compromise gives each verb's
 * lemma, negation and aspect, and the class follows from the lemma and what it acts on — to stop
 * or give up a thing (cessation), not any more / no longer / not in a year (cessation), used to
 * (past), to die or be put down (death), to break up or divorce (breakup), to sell or lose a thing
 * (sale), to graduate, finish or drop out of schooling (studies-ended), to quit, leave or be let go
 * from a job (job-left), to leave a place (place-left), to go off or be over a thing, or to come
 * round to it (taste). Resolution against the user's current facts is the caller's.
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

/** Each clause is read once, though more than one rule asks (the family rules ask who died). */
const READ = new WeakMap<Clause, StateChange[]>();

function readChanges(clause: Clause): StateChange[] {
  const found: StateChange[] = [];
  const whole = clause.text;
  let previousByUser = false;
  // The last thing of the user's named in the clause, for "it" after it: "Dropped my Kindle in the bath and it is dead".
  let lastOwned: string | undefined;
  // "It has been six months since my last cigarette": what the user last had is what they stopped.
  const sinceLast = SINCE_MY_LAST.exec(whole)?.[1];
  const saying = verbPhrases(whole)[0];
  if (sinceLast && saying) {
    const thing = nlp(sinceLast.toLowerCase()).nouns().toPlural().text() || sinceLast.toLowerCase();
    found.push({ change: "cessation", thing, names: [], relations: [], verb: saying });
  }
  for (const verb of verbPhrases(whole)) {
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
    // "I have to give up sugar", "I need to quit": an obligation, not yet a change.
    if (
      /\b(?:have|has|need|needs|ought|want|wants) to\b/i.test(verb.text) ||
      /\b(?:have|has|need|needs|ought|want|wants) to$/i.test(verb.before)
    )
      continue;
    // Verbs joined by "and" share their subject: "I finally kicked the habit and stopped smoking".
    const byUser: boolean = saidOfUser(verb.before) || (previousByUser && /(?:\band|\bor|\bthen|,)\s*$/i.test(verb.before));
    previousByUser = byUser;
    const add = (change: ChangeClass, fields: Partial<StateChange> = {}) =>
      found.push({ change, names: [], relations: [], verb, ...fields });
    // The verb's own comma ends its object: "have given up climbing, my fingers …".
    const acted = `${rest ? `${rest}${/[,;]$/.test(verb.text.trim()) ? "," : ""} ` : ""}${verb.after}`;

    const owned = /\b(?:my|our)\s+(.+)$/i.exec(verb.after.split(/\s+(?:in|into|and|from|to|with|while)\s+|[,;]/)[0] ?? "")?.[1];
    const subjectThing = (): string | undefined => {
      const said = lastPhrase(verb.before).replace(/^.*\b(?:my|our|the)\s+/i, "");
      return /^(?:it|that|this|the thing)$/i.test(said) ? lastOwned : thingOf(said);
    };
    if (owned) lastOwned = thingOf(owned);
    // A thing lost, stolen or broken: "my Omega got nicked", "it is dead", "the sale of the Lisbon flat went through".
    // What a copula says of its subject, whether compromise kept it in the verb ("is dead") or after it.
    const complement = `${verb.text.replace(/^(?:is|are|was|were|am|be|been|has been|have been)\b\s*/i, "")} ${verb.after}`
      .replace(/^(?:not|no longer)\s+/i, "")
      .trim();
    if (lost(verb, complement, byUser, clause.message)) {
      const thing = subjectThing();
      if (thing) add("sale", { thing });
    }
    // "My Vespa has a new owner", "Biscuit went to a new home", "we rehomed Pip": gone to someone else.
    if (!byUser && NEW_KEEPER.test(`${verb.lemma} ${verb.after}`)) {
      // A name may be a pet's ("Pip") or a make ("my Vespa"): the user's facts tell which.
      const names = namesIn(verb.before, clause);
      if (names.length > 0) add("rehomed", { names, relations: relationsIn(verb.before) });
      const thing = subjectThing();
      if (thing) add("sale", { thing });
      if (names.length > 0 || thing) continue;
    }
    const sold = /\bsale of (?:the |my |our )?(.+)$/i.exec(verb.before);
    if (sold && /^(?:go through|complete|close|finalise|finalize)$/.test(verb.lemma)) {
      const thing = thingOf(sold[1] as string);
      if (thing) add("sale", { thing });
      continue;
    }
    // "Miso didn't make it (through the surgery)": said of someone else, a death.
    if (verb.head === "make" && verb.negative && !byUser && /^it(?:\s+through\b|$)/i.test(verb.after)) {
      const names = namesIn(verb.before, clause);
      const relations = relationsIn(verb.before);
      if (names.length > 0 || relations.length > 0) {
        add("death", { names, relations });
        continue;
      }
    }
    // "I gave my Kindle to my niece", "lost my Kindle on the train, never found it": the thing is gone.
    const givenTo = byUser && verb.head === "give" && /^(?:my|our|the) .+? to (?:my|our|a|an|the|\p{Lu})/u.test(verb.after);
    const lostForGood =
      byUser &&
      verb.head === "lose" &&
      /^(?:my|our) /i.test(verb.after) &&
      relationsIn(verb.after).length === 0 &&
      NEVER_FOUND.test(clause.message);
    if (givenTo || lostForGood) {
      const thing = thingOf(verb.after.replace(/\s+to\s+.*$/i, ""));
      if (thing) add("sale", { thing });
      continue;
    }
    // Death in the words people use to soften it: "Mochi crossed the rainbow bridge", "Nan is no longer with us".
    if (!byUser && (DEATH_IDIOM.test(`${verb.lemma} ${verb.after}`) || (verb.head === "be" && noLongerWithUs(verb)))) {
      const names = namesIn(verb.before, clause);
      const relations = relationsIn(verb.before);
      if (names.length > 0 || relations.length > 0) {
        add("death", { names, relations });
        continue;
      }
    }
    // Death: "Rufus passed away", "we lost grandpa Joe", "we had to put Mittens down".
    if (/^(?:die|pass away|pass|put down|put to sleep|put|lose|bury)$/.test(verb.lemma) || /^(?:die|pass away)\b/.test(verb.lemma)) {
      const aboutWhom = /^(?:put|lose|bury)/.test(verb.lemma) ? verb.after : verb.before;
      const names = namesIn(aboutWhom, clause);
      const relations = relationsIn(aboutWhom);
      const putDown = verb.lemma.startsWith("put") ? /\bdown\b|\bto sleep\b/i.test(verb.after) : true;
      const loses = !/^(?:put|lose|bury)/.test(verb.lemma) || byUser;
      if (
        putDown &&
        loses &&
        (names.length > 0 || relations.length > 0) &&
        !(verb.head === "pass" && /\b(?:the|an?) (?:exam|test|bar|course|interview)/i.test(verb.after))
      ) {
        if (
          !(verb.head === "lose" && /^(?:my |our |the )?(?:job|keys?|phone|wallet|weight|track|interest|touch|count)\b/i.test(verb.after))
        )
          add("death", { names, relations });
        continue;
      }
    }
    // Break-up: "Sam and I called it quits", "I broke up with Jo", "we are getting divorced", and the partings of `parting`.
    // "It's over between us" is said of "it": "us" is the user and the partner.
    const overBetweenUs =
      verb.head === "be" &&
      (/^over between us\b/i.test(complement) ||
        // "We are not together any more", "Liam and I are no longer together".
        (noMoreOf(verb, whole) && /^together\b/i.test(complement) && /\b(?:we|and I)\s*$/i.test(verb.before)));
    const parted = overBetweenUs || parting(verb, clause.sentence);
    if (parted || /^(?:break up|split up|split|divorce|separate|call|dump|end)$/.test(verb.lemma) || /^break up\b/.test(verb.lemma)) {
      const quits = parted || verb.lemma !== "call" || /^it quits\b/i.test(verb.after);
      const ends = verb.lemma !== "end" || /^(?:things|it|our (?:relationship|marriage))\b/i.test(verb.after);
      // "Priya called off the engagement": said of someone by name, it ends only a tie with that name (change-rules).
      const byName = !byUser && parted && namesIn(verb.before, clause).length > 0;
      if (quits && ends && (byUser || overBetweenUs || byName || /\bme\b/i.test(verb.after))) {
        // "Sam and I …" is split into two clauses before the rules read it: the partner is in the sentence.
        const pair = /(\p{Lu}[\p{L}'-]+) and (?:I|me)\b/u.exec(clause.sentence)?.[1];
        const names = [
          ...new Set([...namesIn(`${verb.before} ${verb.after}`, clause), ...(pair && looksLikeName(pair, clause) ? [pair] : [])]),
        ];
        add("breakup", { names, relations: relationsIn(`${verb.before} ${verb.after}`).filter((word) => PARTNER_WORDS.test(word)) });
        continue;
      }
    }
    // Said of the thing rather than by the user: "tennis is off the table for good", "horror films
    // don't do it for me these days", "sushi isn't my thing any more".
    const subject = byUser ? undefined : thingOf(lastPhrase(verb.before), clause);
    // compromise may read "is off" as one verb: what is said of the subject starts after "is".
    const predicate =
      verb.head === "be"
        ? verb.after
        : /^(?:is|are|was|were)\b/i.test(verb.text)
          ? `${verb.text.replace(/^\S+\s*/, "")} ${verb.after}`.trim()
          : "";
    // A thing said to have come to its end: "the pottery course wrapped up", "the book club has ended".
    if (subject && !verb.negative && CAME_TO_AN_END.test(`${verb.lemma} ${verb.after}`) && !FOR_NOW.test(whole)) {
      add("cessation", { thing: subject });
      continue;
    }
    if (subject && RULED_OUT.test(predicate)) {
      add("cessation", { thing: subject });
      continue;
    }
    const anyMore = /\b(?:any ?more|these days|nowadays)\b/i.test(whole) || verb.noLonger;
    // "is no longer …", "is not … any more": what the verb says holds no more.
    const noMore = verb.noLonger || (verb.negative && anyMore);
    if (
      subject &&
      ((verb.head === "do" && verb.negative && /^it for (?:me|us)\b/i.test(verb.after)) ||
        (noMore && NOT_MINE.test(predicate)) ||
        (verb.head === "lose" && LOST_ITS_PULL.test(verb.after)) ||
        // "Marvel films bore me now": compromise reads "bore" as the past of "bear".
        (/^(?:bore|bear)$/.test(verb.head) && /^(?:me|us)\b.*\b(?:now|these days|nowadays|any ?more)\b/i.test(verb.after)))
    ) {
      add("taste-ended", { thing: subject });
      continue;
    }
    // "Hung up my white coat after 30 years": the job's clothes put away for good, not a coat on a hook.
    if (byUser && verb.lemma === "hang up" && /^my\s/i.test(verb.after) && HUNG_UP_FOR_GOOD.test(clause.message)) {
      add("job-left");
      continue;
    }
    // A job left, whoever says it: "they let me go", "(I) got made redundant", "finished my last shift".
    if (
      (verb.head === "let" && /^me go\b/i.test(verb.after)) ||
      (verb.head === "make" && /^redundant\b/i.test(verb.after) && (byUser || /\b(?:got|was|been)$/i.test(verb.before))) ||
      (/^(?:finish|work|do|pull)$/.test(verb.head) &&
        byUser &&
        /^(?:my|the) (?:last|final) (?:shift|day|route|week)\b(?!\s+of\s+(?!work\b))/i.test(verb.after))
    ) {
      add("job-left", employerLeft(verb.after));
      continue;
    }
    if (/^(?:steal)$/.test(verb.lemma) && /^(?:my|our)\s/i.test(verb.after)) {
      const thing = thingOf(verb.after);
      if (thing) add("sale", { thing });
      continue;
    }
    // Studies done, said of the degree as often as by the user: "passed my viva", "that is the PhD done".
    if (
      (/^(?:pass|defend)$/.test(verb.head) && /^my (?:viva|defen[cs]e|finals|final exams|dissertation|thesis)\b/i.test(verb.after)) ||
      (verb.head === "be" && /^(?:the|my) \S+(?: \S+)? (?:done|finished|over)\b/i.test(verb.after) && SCHOOLING.test(verb.after))
    ) {
      const degree = /\b(?:PhD|doctorate|masters?|MBA|MSc|MA|BSc|BA|degree)\b/i.exec(clause.sentence)?.[0];
      add("studies-ended", { thing: degree ? `their ${degree}` : "studies" });
      continue;
    }
    if (!byUser) continue;

    // "I am not single any more", "I do not consider myself religious these days": a state of the user's that ended.
    const considers = verb.head === "consider" && /\bmyself\s+(.+)$/i.exec(`${verb.lemma} ${verb.after}`)?.[1];
    // compromise reads "am not married" as the verb "marry": a copula in the verb's text makes it a state.
    const copula = verb.head === "be" || /^(?:am|is|are|was|were)\b/i.test(verb.text);
    if (((copula && !/^with\s/i.test(verb.after)) || considers) && noMore) {
      const state = (considers || complement.replace(/^(?:not|no longer)\s+/i, ""))
        .replace(/\b(?:any ?more|these days|nowadays|actually|really|officially|though)\b.*$/i, "")
        .replace(/[,;.!]+$/, "")
        .trim();
      if (state && state.split(/\s+/).length <= 4) add("state-ended", { thing: state.replace(/^(?:an?|the)\s+/i, "") });
      continue;
    }
    // "I am done with dating apps", "I'm finished with running": a thing given up.
    if (
      copula &&
      !verb.negative &&
      /^(?:done|finished|through) with\s+(?!it\b|that\b|this\b|work\b|the (?:kitchen|dishes|washing)\b)/i.test(complement)
    ) {
      const thing = thingOf(complement.replace(/^(?:done|finished|through) with\s+/i, ""));
      if (thing) add("cessation", { thing });
      continue;
    }
    // "I am no longer with the council", "I'm not with Sam any more": a tie that ended — with an
    // employer, or with a partner by name; each closes only a held fact that names it.
    if (verb.head === "be" && noMore && /^with\s+\S/i.test(verb.after)) {
      const tie = verb.after
        .replace(/^with\s+/i, "")
        .replace(THING_END, "")
        .replace(/^the\s+/i, "")
        .trim();
      const names = namesIn(tie, clause);
      if (names.length > 0) add("breakup", { names });
      if (tie) add("job-left", { mentions: tie });
      continue;
    }

    // Leaving a job: "I quit my job", "I got let go from Walmart", "I handed in my notice at Spotify", "I retired".
    const leaves =
      /^(?:quit|leave|resign|let go|lay off|fire|hand in|retire)\b/.test(verb.lemma) ||
      (verb.head === "step" && /^down (?:from|as)\b/i.test(verb.after));
    if (
      leaves &&
      (verb.lemma.startsWith("retire") ||
        JOB.test(acted) ||
        /^(?:let go|lay off|fire)/.test(verb.lemma) ||
        /^(?:from|at)\s+\p{Lu}/u.test(verb.after) ||
        verb.head === "step" ||
        /^resign/.test(verb.lemma))
    ) {
      add("job-left", employerLeft(verb.after));
      continue;
    }
    // Schooling that ended: "I graduated", "I finished law school", "I dropped out of college", "I quit my PhD".
    if (
      /^(?:graduate|finish|complete|drop out|quit|leave|qualify)\b/.test(verb.lemma) &&
      (verb.lemma.startsWith("graduate") || verb.lemma.startsWith("qualify") || SCHOOLING.test(acted))
    ) {
      // "I qualified as a nurse": the training is what finished; the new job is the work rule's.
      add("studies-ended", { thing: verb.head === "qualify" ? "their training" : (thingOf(acted) ?? "studies") });
      continue;
    }
    // A place left: "we left Queens in March".
    const getsOut = /^(?:get|got) out$/.test(verb.lemma) || (verb.head === "get" && /^out of\s/i.test(verb.after));
    if (verb.lemma === "leave" || verb.lemma === "move away" || verb.lemma === "move out" || getsOut) {
      const place = properPhrase(verb.after.replace(/^(?:out\s+)?(?:from|of)\s+/i, ""));
      if (place) add("place-left", { mentions: place });
      continue;
    }
    // Selling or losing a thing: "I sold the Mazda", "we got rid of the caravan".
    if (/^(?:sell|flog|offload|auction|get rid|give away|trade in|part with|scrap|total|write off)\b/.test(verb.lemma)) {
      const thing = thingOf(verb.after.replace(/^of\s+/i, ""));
      if (thing && !/^(?:weight|track|interest|touch|count|sleep|time|money)$/i.test(thing)) add("sale", { thing });
      continue;
    }
    // Tastes: "I have gone off sushi", "I am so over country music", "I came round to running".
    if (
      /^(?:go off|fall out|lose)$/.test(verb.lemma) ||
      (verb.lemma === "grow out" && /^of\s/i.test(verb.after)) ||
      (verb.lemma === "be" && /^(?:so |totally |completely )?over\s+(?!it\b|here\b|there\b|the moon\b)/i.test(verb.after))
    ) {
      const thing = thingOf(verb.after.replace(/^(?:so |totally |completely )?over\s+|^of love with\s+|^interest in\s+|^of\s+/i, ""));
      // "I've lost interest" names nothing: the clause beside it says what ("I haven't climbed in a year").
      if (thing && (verb.lemma !== "lose" || /^interest in\b/i.test(verb.after))) add("taste-ended", { thing });
      continue;
    }
    // compromise may leave the particle after the verb: "have actually come | round to olives".
    const cameRound = verb.head === "come" && /^(?:a)?round (?:on|to)\s/i.test(verb.after);
    const roundAfter = cameRound ? verb.after.replace(/^(?:a)?round\s+/i, "") : verb.after;
    if ((cameRound || /^(?:come around|come round|grow)$/.test(verb.lemma)) && /^(?:on|to)\s|^to (?:like|love|enjoy)\s/i.test(roundAfter)) {
      const thing = thingOf(roundAfter.replace(/^(?:on|to)\s+(?:like|love|enjoy)?\s*/i, ""));
      if (thing) add("taste-began", { thing });
      continue;
    }
    // "I cancelled my gym membership": what the membership was for is given up.
    const membership = /^(?:my|our|the) (.+?) (?:membership|subscription|lessons|classes|season ticket)\b/i.exec(verb.after)?.[1];
    if (/^(?:cancel|end|let lapse)$/.test(verb.lemma) && membership) {
      const thing = thingOf(membership);
      if (thing) add("cessation", { thing });
      continue;
    }
    // Stopping a habit: "I stopped smoking", "I gave up on Japanese", "I kicked the habit" — not "I stopped by the shop".
    if (/^(?:stop|quit|give up|kick|drop|cut out|ditch|abandon|bin|chuck|pack in)\b/.test(verb.lemma)) {
      if (
        /^(?:stop|drop) (?:by|in|over|off)\b/.test(verb.lemma) ||
        (!rest && /^(?:by|at|in|for|to|over|off|into|here|there|and)\b/i.test(verb.after))
      )
        continue;
      const thing = thingOf(acted.replace(/^(?:on|with)\s+/i, ""));
      if (thing && !JOB.test(thing)) add("cessation", { thing });
      continue;
    }
    // "I do not play tennis any more", "I no longer take the bus", "I have not climbed in over a year".
    const lapsed = verb.negative && verb.perfect && LAPSE.test(verb.after);
    if (
      (verb.negative || verb.noLonger) &&
      (anyMore || lapsed) &&
      !/^(?:be|have|like|love|enjoy|live|work|drink|eat|smoke|vape)$/.test(verb.lemma) &&
      // "I don't do my morning runs any more" names its thing; "I don't do that any more" does not.
      !(verb.lemma === "do" && !/^(?:my|the|any|our)\s/i.test(verb.after))
    ) {
      // "I have not climbed in over a year": the duration is not the thing; the verb is.
      const object = thingOf(acted.replace(LAPSE, "").replace(/\b(?:any ?more|these days|nowadays)\b.*$/i, ""));
      add("cessation", { thing: object ?? gerund(verb.lemma) });
      continue;
    }
    // "I used to go horseback riding", "I used to compete".
    if (verb.usedTo && verb.head !== "be" && verb.head !== "think" && verb.head !== "feel") {
      const thing = thingOf(acted);
      if (thing || verb.after === "") add("past", { thing: thing ?? gerund(verb.lemma) });
    }
  }
  // Two verbs may read one change ("passed my viva, so that is the PhD done"): once is enough.
  return found.filter(
    (change, index) => found.findIndex((other) => other.change === change.change && other.thing === change.thing) === index,
  );
}

/**
 * Whether a verb says its subject (a thing) is gone: stolen ("my Omega got nicked"), written off,
 * or dead or broken when the message says for good — "my phone died" alone is a flat battery.
 */
function lost(verb: VerbPhrase, complement: string, byUser: boolean, message: string): boolean {
  const forGood = FOR_GOOD.test(message);
  return (
    (/^(?:steal|nick|pinch|nab|swipe)$/.test(verb.head) && /\b(?:got|get|was|were|been|be)\b/i.test(verb.text)) ||
    (verb.head === "be" && !verb.negative && /^(?:stolen|totalled|written off)\b/i.test(complement)) ||
    (forGood && verb.head === "be" && !verb.negative && /^(?:dead|broken|bust|busted|ruined|toast|kaput)\b/i.test(complement)) ||
    (forGood && /^(?:die|break|conk out)$/.test(verb.lemma) && !byUser)
  );
}

/** "no longer", or "not" with "any more" / "these days" in the clause. */
const noMoreOf = (verb: VerbPhrase, clause: string) =>
  verb.noLonger || (verb.negative && /\b(?:any ?more|these days|nowadays)\b/i.test(clause));

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

/** The employer a job-leaving verb names, if any: "from Walmart", "at the BBC". */
function employerLeft(after: string): Partial<StateChange> {
  const employer = /\b(?:from|at|with)\s+((?:the\s+)?\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*)/u.exec(after)?.[1];
  return employer ? { mentions: employer.replace(/^the\s+/i, "") } : {};
}

/** "climb" → "climbing", for a habit named by its verb. */
function gerund(lemma: string): string {
  const verb = lemma.split(/\s+/)[0] ?? lemma;
  if (/ie$/.test(verb)) return `${verb.slice(0, -2)}ying`;
  if (/[^aeiou]e$/.test(verb)) return `${verb.slice(0, -1)}ing`;
  return `${verb}ing`;
}
