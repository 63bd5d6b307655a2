import type { ExtractedFact } from "../../extraction.js";
import { firstProperPhrase, looksLikeName, objectPhrase, properPhrase, saysAnymore, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput, retraction } from "./rule.js";

/** "My name is Tomás Alvarez", "Hi, I am Priya", "Everyone calls me Jo". */
export const name: FactRule = (input) => {
  const { text } = input.clause;
  const stated = /\bmy name is\s+(.+)$/i.exec(text) ?? /\b(?:call|calls)\s+me\s+(.+)$/i.exec(text);
  const introduced = stated ? null : /^(?:(?:[Hh]i|[Hh]ello|[Hh]ey)(?: there)?,?\s+)?I am\s+(\p{Lu}[\p{L}'-]+)(?:,.*)?$/u.exec(text);
  const raw = stated?.[1] ?? introduced?.[1];
  const found = raw ? properPhrase(raw) : null;
  if (!found || RELIGION.test(found)) return [];
  const words = found.split(" ").slice(0, 3);
  if (!words.every((word) => looksLikeName(word, input.clause))) return [];
  const value = words.join(" ");
  return [fact(input, { key: "profile:name", value, content: `User's name is ${value}.` })];
};

/** Faiths and their absence: a closed class, so "I'm Catholic" is never read as a name. */
const RELIGIONS =
  "Catholic|Christian|Protestant|Anglican|Methodist|Baptist|Lutheran|Orthodox|Mormon|Muslim|Jewish|Hindu|Buddhist|Sikh|Jain|Quaker|Pagan|atheist|agnostic";
const RELIGION = new RegExp(`^(?:${RELIGIONS})$`, "i");

/** "I'm Catholic", "I am a practising Muslim", "I'm Jewish, not very observant". */
export const religion: FactRule = (input) => {
  const match = new RegExp(`\\bI am (?:an? )?(?:practi[cs]ing |devout |lapsed |non-practi[cs]ing )?(${RELIGIONS})\\b`, "i").exec(
    input.clause.text,
  );
  if (!match) return [];
  const faith = match[1] as string;
  const said = /^(?:atheist|agnostic)$/i.test(faith) ? `an ${faith.toLowerCase()}` : faith;
  return [fact(input, { key: "profile:religion", value: faith, content: `User is ${said}.` })];
};

/** "I am 34", "I am 29 years old", "I (just) turned 40". */
export const age: FactRule = (input) => {
  const match = /\bI (?:am|just turned|turned)\s+(\d{1,3})(?:\s+years?\s+old)?(?=$|\s+(?:and|but|last|this|today|now)\b)/i.exec(
    input.clause.text,
  );
  const years = match ? Number(match[1]) : 0;
  if (!match || years < 1 || years > 110) return [];
  return [fact(input, { key: "profile:age", value: String(years), content: `User is ${years} years old.` })];
};

/** Where the user lives now ("I live in", "we moved to", "I am based in"), and no longer does. */
export const home: FactRule = (input) => {
  const { text } = input.clause;
  // Contractions are expanded by now (clauses.ts): "don't" reads "do not".
  const left = /\b(?:I|we) (?:no longer live|do not live|moved away from|moved out of)\s+(?:in\s+)?(.+)$/i.exec(text);
  if (left) {
    const place = firstProperPhrase(left[1] as string, input.clause);
    if (!place || (/do not/i.test(left[0]) && !saysAnymore(text))) return [];
    return retraction(input, "profile:location", `User no longer lives in ${place}.`, place);
  }
  // "I live in Leeds", "I'm living with my parents back in Norwich", "I rent a one-bed flat in Hackney".
  const lives =
    /\b(?:I|we) (?:currently |now |still )?(?:live|am (?:now |currently )?living|are (?:now |currently )?living|have lived|reside)(?: with (?:my|our) \w+(?: \w+)?)?(?: back| out| over)? in\s+(.+)$/i.exec(
      text,
    ) ??
    (/\b(?:rent|let) (?:it |them )?out\b/i.test(text)
      ? null
      : /\b(?:I|we) (?:currently |now )?(?:rent|share) (?:a|an|the) (?:[\w-]+ )?(?:flat|apartment|house|room|studio|condo|place) in\s+(.+)$/i.exec(
          text,
        ));
  const moved =
    /\b(?:I|we) (?:just |recently |finally |have |had )?(?:moved|relocated|moved back|upped sticks|decamped|emigrated) to\s+(.+)$/i.exec(
      text,
    );
  const based = /\bI am (?:now |currently )?based in\s+(.+)$/i.exec(text);
  // Settled somewhere new, or home named: "now that I am settled in Glasgow", "home is Kyoto now".
  const settled = /\b(?:I|we) (?:am|are) (?:now |finally |all )?(?:settled|settling) in\s+(.+)$/i.exec(text);
  // "Now that I'm in Valencia": "now that" says the place is the new state, not a visit.
  const nowThat = /\bnow that (?:I|we) (?:am|are) (?:living |based |settled )?(?:in|out in|over in)\s+(\p{Lu}.+)$/iu.exec(text);
  const homeIs =
    /\b(?:home|my home|our home|my address|our address) (?:these days |nowadays |now )?is (?:now )?(?:in |an? [\p{L} -]{2,30}? in )?(\p{Lu}.+)$/iu.exec(
      text,
    ) ?? /^(\p{Lu}[\p{L}' -]+?) is (?:my |our )?home now\b/u.exec(text);
  // "We packed up and headed to Austin": a trip unless the message says the move is for good.
  const headed = RELOCATED.test(input.clause.message)
    ? /\b(?:I|we) (?:\w+ up and |finally |just )?(?:headed|went|came|emigrated|moved back|got) (?:over |back |out )?to\s+(.+)$/i.exec(text)
    : null;
  // A new home named by where it is: "first week in the new flat in Bristol", "writing from our new apartment in Melbourne".
  const newHome = /\b(?:the|my|our) new (?:flat|apartment|house|place|home|condo|pad) (?:in|over in|out in)\s+(.+)$/i.exec(text);
  // "I'm in Jersey City now": where the user is, which the message says is a move ("cheaper rent").
  const inNow = LIVES_NOW.test(input.clause.message)
    ? /\bI am (?:now |currently )?(?:in|out in|over in)\s+(\p{Lu}.+?)\s+now\b/iu.exec(text)
    : null;
  // Chat drops the subject: "Moved to Toronto in the spring."
  const bareMove = /^(?:just |recently )?(?:moved|relocated) to\s+(.+)$/i.exec(text);
  const raw = (lives ?? moved ?? based ?? bareMove ?? settled ?? nowThat ?? homeIs ?? newHome ?? inNow ?? headed)?.[1];
  const place = raw ? firstProperPhrase(raw, input.clause) : null;
  if (!place) return [];
  return [fact(input, { key: "profile:location", value: place, content: `User lives in ${place}.` })];
};

/** What says a move is for good, not a trip: "packed up", "settled", "loving it here", "our new place". */
const RELOCATED =
  /\b(?:packed up|settled|settling in|loving it here|love it here|living here|new home|new place|new flat|new apartment|new house|for good|moved|emigrated|relocated)\b/i;
/** What says "I'm in Jersey City now" is a home, beside the words of a move: leaving the last one, the rent, the commute. */
const LIVES_NOW = new RegExp(`${RELOCATED.source}|\\b(?:got out of|left|rent|commute)\\b`, "i");

/** "I am (originally) from Kerala", "I grew up in Porto", "I was born in Lyon". */
export const origin: FactRule = (input) => {
  const match = /\bI (?:am (?:originally )?from|grew up in|was born (?:and raised )?in|come from)\s+(.+)$/i.exec(input.clause.text);
  const place = match ? properPhrase(match[1] as string) : null;
  if (!place || input.clause.tagsOf(place.split(" ")[0] as string).has("Demonym")) return [];
  return [fact(input, { key: "profile:origin", value: place, content: `User is from ${place}.` })];
};

/** Words compromise does not tag as occupations in every sentence ("I am a nurse"). */
const OCCUPATIONS = new Set(
  "nurse barista cashier waiter waitress principal chef cook pilot doctor dentist surgeon vet veterinarian pharmacist paramedic firefighter police officer soldier farmer carpenter plumber electrician mechanic engineer architect lawyer attorney judge accountant consultant analyst manager director ceo cto founder teacher professor lecturer tutor researcher scientist journalist editor writer author designer developer programmer artist musician photographer actor actress therapist psychologist counselor counsellor librarian nanny midwife receptionist secretary clerk banker broker realtor translator interpreter baker butcher driver courier tailor hairdresser barber coach trainer physiotherapist social worker carer caregiver gp".split(
    " ",
  ),
);
/** Nouns compromise tags as people that are not jobs: "I am a big fan of", "a morning person". */
const NOT_OCCUPATIONS = new Set(
  "person people fan lover believer perfectionist optimist pessimist introvert extrovert beginner member owner user customer patient client guest adult kid child parent mother father mom dad partner wife husband friend vegetarian vegan pescatarian student native speaker survivor nerd geek mess dreamer runner".split(
    " ",
  ),
);

function occupationPhrase(raw: string, tagsOf: (word: string) => ReadonlySet<string>): string | null {
  const phrase = objectPhrase(raw.replace(/^(?:an?|the)\s+/i, ""));
  if (!phrase) return null;
  const head = (phrase.split(" ").pop() as string).toLowerCase();
  // "a keen yogi", "an avid photographer", "an amateur baker": a pastime, not a job.
  if (
    NOT_OCCUPATIONS.has(head) ||
    /^(?:keen|avid|big|huge|passionate|amateur|hobby|hobbyist|self-taught|aspiring|wannabe|weekend|casual|enthusiastic)\b/i.test(phrase)
  )
    return null;
  return OCCUPATIONS.has(head) || tagsOf(head).has("Actor") ? phrase.replace(/^(?:new|current)\s+/i, "") : null;
}

/**
 * The organisation after "at" / "for" / "with": a proper name, or "the hospital"; "a design studio"
 * too where the sentence is explicitly about a job (`indefinite`), not in "I am an accountant at a
 * small firm", where it adds nothing a reader can use.
 */
function employerPhrase(raw: string, indefinite = false): string | null {
  const proper = properPhrase(raw);
  if (proper) return proper;
  const article = /^(the|an?)\s+\p{Ll}/u.exec(raw)?.[1]?.toLowerCase();
  if (!article || (article !== "the" && !indefinite)) return null;
  const phrase = objectPhrase(raw.slice(article.length + 1));
  return phrase ? `${article} ${phrase.split(" ").slice(0, 3).join(" ")}` : null;
}

/**
 * "I left teaching and now work as a data analyst": the verb after "and" is the user's too, when
 * what follows is a job ("… and work as hard as I can" is not).
 */
function worksAsAfterAnd(text: string, tagsOf: (word: string) => ReadonlySet<string>): RegExpExecArray | null {
  const joined = /\bI\b.*\band (?:now |currently |also )?(?:work|am working) as\s+(.+)$/i.exec(text);
  return joined && occupationPhrase(joined[1] as string, tagsOf) ? joined : null;
}

/** Words that say a place is somewhere people work: "the GP practice", "a bakery in town". */
const WORKPLACE =
  /\b(?:practice|surgery|hospital|clinic|firm|company|agency|studio|startup|start-up|office|council|bank|bakery|restaurant|caf[eé]|shop|store|warehouse|factory|school|college|university|charity|lab|laboratory|newspaper|magazine|hotel|pharmacy|garage|salon)\b/i;

/** Where "I started at …" starts work: a workplace by what it is, or an organisation by name — not "the gym", "9am" or "Leeds". */
function workplace(raw: string, tagsOf: (word: string) => ReadonlySet<string>): string | null {
  const named =
    /^(?:the|a|an)\s+((?:[\p{L}&'-]+\s+){0,3}?[\p{L}&'-]+?)(?=\s+(?:down|round|in|on|at|near|last|this|and|so|where|which|I)\b|$)/iu.exec(
      raw,
    );
  if (named && WORKPLACE.test(named[1] as string)) return `the ${named[1]}`;
  const proper = properPhrase(raw);
  if (!proper) return null;
  const tags = tagsOf(proper.split(" ")[0] as string);
  return ["Place", "Date", "Person", "Month", "WeekDay", "Time"].some((tag) => tags.has(tag)) ? null : proper;
}

const occupationFact = (input: RuleInput, occupation: string): ExtractedFact =>
  fact(input, {
    key: "profile:occupation",
    value: occupation,
    content: `User works as ${/^[aeiou]/i.test(occupation) ? "an" : "a"} ${occupation}.`,
  });
const employerFact = (input: RuleInput, employer: string): ExtractedFact =>
  fact(input, { key: "profile:employer", value: employer, content: `User works at ${employer}.` });

/** Retired, however it is put: "I am retired", "a man of leisure now", "done with work for good". */
const RETIRED =
  /\bI am (?:now |happily |officially |finally )?(?:retired\b|an? (?:man|woman|lady|gentleman) of leisure\b|done with work for good\b|an? (?:pensioner|retiree)\b|on (?:my|a|the) pension\b|in retirement\b|enjoying (?:my )?retirement\b)|\bsince (?:I )?retir(?:ing|ed)\b|\bI (?:drew|have drawn|am drawing|started drawing|am collecting) my (?:first )?(?:state |work )?pension\b/i;
/** Out of work: "I am unemployed", "between jobs", "job hunting again". */
const NOT_WORKING =
  /\bI am (?:now |currently )?(?:unemployed|out of work|between jobs|job hunting|looking for (?:a )?(?:job|work))\b|^(?:so,? )?(?:back to )?job hunting(?: again)?$/i;

/**
 * Jobs and employers: "I work as", "I work at / for", "I am a software engineer at Google", "I have
 * been a nurse for ten years", "I (just) started a new job as … at …", "joined Stripe as …", "I
 * teach chemistry", "I am retired"; and leaving one: "I quit the hospital", "I left Google".
 */
export const work: FactRule = (input) => {
  const { text, tagsOf } = input.clause;
  const facts = [];
  const left =
    /\bI (?:just |recently )?(?:quit|left|resigned from|got laid off from|was laid off from|got fired from|no longer work (?:at|for))\s+(?:my job (?:at|with)\s+)?(.+)$/i.exec(
      text,
    );
  const leftEmployer = left ? employerPhrase(left[1] as string) : null;
  if (leftEmployer) facts.push(...retraction(input, "profile:employer", `User no longer works at ${leftEmployer}.`, leftEmployer));
  // "I quit my job": whatever the employer was.
  else if (left && /^my job\b/i.test(left[1] as string))
    facts.push(...retraction(input, "profile:employer", "User no longer works at their job."));
  const worksAs = /\bI (?:now |currently |also )?(?:work|am working) as\s+(.+)$/i.exec(text) ?? worksAsAfterAnd(text, tagsOf);
  const worksAt =
    /\bI (?:work|am working|have worked) (?:at|for)\s+(.+?)(?:\s+as\s+(.+))?$/i.exec(text) ??
    /\bI (?:have been|am now|am) (?:at|with)\s+(\p{Lu}[\p{L}&'.-]*(?:\s+\p{Lu}[\p{L}&'.-]*)*)(?=\s+(?:since|for \d|for (?:a|two|three|several|many) (?:years?|months?)|now\b))/u.exec(
      text,
    );
  // "I am a midwife, not a nurse": what the user is not is a correction, not part of the job.
  const isA = /\bI (?:am|have been|am now)\s+(?:now\s+)?(an? .+?)(?:\s+(?:at|for|with)\s+(.+))?$/i.exec(
    text.replace(/,?\s+(?:not|rather than|instead of) (?:an? |the )?[\p{L}-]+(?: [\p{L}-]+)?(?=,|$).*$/iu, ""),
  );
  const newJob =
    /\b(?:I (?:just |recently |finally )?(?:started|got|landed|accepted|took|began)|moved \S+(?: \S+)? for) (?:a |my |the )?(?:new |first )?(?:job|position|role|working)\b(?:\s+as\s+(.+?))?(?:\s+(?:at|with|for)\s+(.+))?$/i.exec(
      text,
    );
  const joined = /\b(?:I )?(?:just |recently )?joined\s+(\p{Lu}.+?)\s+as\s+(.+)$/u.exec(text);
  // "Monday I start as a junior developer at Monzo", "I have jumped ship to a smaller firm".
  const startsAs = /\bI (?:start|am starting|will start|started) as\s+(.+?)(?:\s+(?:at|with|for)\s+(.+))?$/i.exec(text);
  const switched = /\bI (?:have |just )?(?:jumped ship|switched|moved over) to\s+(.+)$/i.exec(text);
  // "Now that I've started at the GP practice": a new workplace, named or by what it is.
  // "… on Fridays too", "a second job": work added beside the held one, which stays.
  const startedAt = /\b(?:too|also|as well|on the side|second job|part-time)\b/i.test(text)
    ? null
    : /\bI (?:have |just |recently |finally )*(?:started|began) (?:work |working )?at\s+(.+)$/i.exec(text);
  // Said without a verb: "— data analyst at an insurance firm now".
  const nowAt = /(?:^|[—–:]\s*)(?:an? )?(\p{L}[\p{L} -]{1,40}?) at (.+?) now$/u.exec(text);
  const teaches = /\bI teach\s+(.+)$/i.exec(text);
  const promoted =
    /\bI (?:just |finally )?(?:got|was|have been|am being) promoted to\s+(.+)$|\bI (?:have |just |finally )?qualified as\s+(.+)$/i.exec(
      text,
    );
  const isAJob = isA ? occupationPhrase(isA[1] as string, tagsOf) : null;
  const occupation =
    (worksAs && objectPhrase((worksAs[1] as string).replace(/^(?:an?)\s+/i, ""))) ??
    (worksAt?.[2] && occupationPhrase(worksAt[2], tagsOf)) ??
    isAJob ??
    (newJob?.[1] && occupationPhrase(newJob[1], tagsOf)) ??
    (joined && occupationPhrase(joined[2] as string, tagsOf)) ??
    (startsAs && occupationPhrase(startsAs[1] as string, tagsOf)) ??
    (promoted && occupationPhrase((promoted[1] ?? promoted[2]) as string, tagsOf)) ??
    (nowAt && occupationPhrase(nowAt[1] as string, tagsOf)) ??
    null;
  const employer =
    (worksAt && employerPhrase(worksAt[1] as string, true)) ??
    (isAJob && isA?.[2] && employerPhrase(isA[2])) ??
    (newJob?.[2] && employerPhrase(newJob[2], true)) ??
    (joined && properPhrase(joined[1] as string)) ??
    (startsAs?.[2] && employerPhrase(startsAs[2], true)) ??
    (startedAt && workplace(startedAt[1] as string, tagsOf)) ??
    (nowAt && occupationPhrase(nowAt[1] as string, tagsOf) && employerPhrase(nowAt[2] as string, true)) ??
    (switched && /\b(?:firm|company|agency|studio|startup|practice|team|employer|business)\b/i.test(switched[1] as string)
      ? employerPhrase((switched[1] as string).replace(/,.*$/, ""), true)
      : null) ??
    null;
  if (occupation) facts.push(occupationFact(input, occupation));
  else if (teaches) {
    const subject = objectPhrase(teaches[1] as string);
    if (subject) facts.push(fact(input, { key: "profile:occupation", value: `${subject} teacher`, content: `User teaches ${subject}.` }));
  } else if (RETIRED.test(text)) {
    facts.push(fact(input, { key: "profile:occupation", value: "retired", content: "User is retired." }));
    facts.push(...retraction(input, "profile:employer", "User retired."));
  } else if (NOT_WORKING.test(text)) {
    facts.push(...retraction(input, "profile:occupation", "User is out of work."));
    facts.push(...retraction(input, "profile:employer", "User is out of work."));
  }
  if (employer) facts.push(employerFact(input, employer));
  return facts;
};

/** "I am studying biology at Lund University", "I study law", "a master's in physics", "majoring in", "a student at MIT", "I graduated from Stanford". */
export const studies: FactRule = (input) => {
  const { text } = input.clause;
  const graduated = /\bI (?:graduated|have graduated) from\s+(.+)$/i.exec(text);
  if (graduated) {
    const school = properPhrase(graduated[1] as string);
    return school ? [fact(input, { key: "profile:alma_mater", value: school, content: `User graduated from ${school}.` })] : [];
  }
  const field =
    /\bI (?:am studying|study|am majoring in|major in|am doing (?:a|my) (?:masters|phd|bachelors|degree|doctorate) in)\s+(?!for\b|to\b|hard\b|a lot\b)(.+?)(?:\s+at\s+(.+))?$/i.exec(
      text,
    );
  const school = /\bI am in (?:my \p{L}+ year of )?(\p{Ll}+) school\b/iu.exec(text);
  if (school)
    return [fact(input, { key: "profile:studies", value: { subject: school[1] as string }, content: `User is in ${school[1]} school.` })];
  const student = /\bI am (?:a |an )?(?:\p{L}+ )?(?:student|undergrad|undergraduate|grad student|PhD student) at\s+(.+)$/iu.exec(text);
  const subject = field ? objectPhrase(field[1] as string) : null;
  const institution = field?.[2] ? properPhrase(field[2]) : student ? properPhrase(student[1] as string) : null;
  if (!subject && !institution) return [];
  const content = subject ? `User studies ${subject}${institution ? ` at ${institution}` : ""}.` : `User is a student at ${institution}.`;
  const value = { ...(subject ? { subject } : {}), ...(institution ? { school: institution } : {}) };
  return [fact(input, { key: "profile:studies", value, content })];
};

const DIETS = "vegetarian|vegan|pescatarian|pescetarian|keto|gluten-free";

/** "I am vegetarian", "I became a vegan", "I went vegan"; "I am not vegetarian anymore". */
export const diet: FactRule = (input) => {
  const { text } = input.clause;
  const stopped = new RegExp(`\\bI (?:am not|am no longer|stopped being|quit being)\\s+(?:an? )?(${DIETS})\\b`, "i").exec(text);
  if (stopped) {
    if (/\bam not\b/i.test(stopped[0]) && !saysAnymore(text)) return [];
    const kind = (stopped[1] as string).toLowerCase();
    return retraction(input, "profile:diet", `User is no longer ${kind}.`, kind);
  }
  // "I eat meat again", "I'm back on fish": what the diet left out is eaten again.
  const held = input.known.get("profile:diet");
  const eats =
    /\bI (?:eat|am eating|have started eating|started eating|am back on|have gone back to) (meat|fish|chicken|steak|bacon|burgers?|dairy|cheese|eggs)\b/i.exec(
      text,
    );
  if (held && eats && (/\bagain\b|\bback\b/i.test(text) || /\bstarted\b/i.test(eats[0]))) {
    const meatless = /vegetarian|vegan|pescatarian|pescetarian/i.test(String(held.value));
    const food = (eats[1] as string).toLowerCase();
    const breaks = /vegan/i.test(String(held.value)) || (meatless && !(/pesc/i.test(String(held.value)) && food === "fish"));
    if (breaks) return retraction(input, "profile:diet", `User is no longer ${String(held.value)}.`);
  }
  const match = new RegExp(`\\bI (?:am|became|went|have been|turned)\\s+(?:now\\s+)?(?:an? )?(?:strict )?(${DIETS})\\b`, "i").exec(text);
  if (!match) return [];
  const kind = (match[1] as string).toLowerCase();
  return [fact(input, { key: "profile:diet", value: kind, content: `User is ${kind}.` })];
};

/** "I am allergic to cats and dust", "I have a peanut allergy", "I am lactose intolerant": one fact per allergen. */
export const allergies: FactRule = (input) => {
  const { text } = input.clause;
  const intolerant = /\bI am (\p{L}+) intolerant\b/iu.exec(text);
  if (intolerant) {
    const what = (intolerant[1] as string).toLowerCase();
    return [fact(input, { key: `allergy:${slug(what)}`, value: `${what} intolerance`, content: `User is ${what} intolerant.` })];
  }
  // "I have outgrown my egg allergy", "I am not allergic to penicillin any more": the allergy ends.
  const outgrown =
    /\bI (?:have |finally )?(?:outgrown|outgrew|grew out of|got over) (?:my |the )?(\p{L}+) allergy\b/iu.exec(text) ??
    (saysAnymore(text) || /\bno longer\b/i.test(text) ? /\bI am (?:not|no longer) allergic to\s+(\p{L}+)/iu.exec(text) : null);
  if (outgrown) {
    const allergen = (outgrown[1] as string).toLowerCase();
    const held = [...input.known.values()].filter(
      (item) => item.key.startsWith("allergy:") && item.content.toLowerCase().includes(allergen.replace(/s$/, "")),
    );
    return held.flatMap((item) => retraction(input, item.key, `User is no longer allergic to ${allergen}.`));
  }
  const allergy = /\bI have (?:an? )?(?:severe |mild |bad |serious |slight )?(\p{L}+) allergy\b/iu.exec(text);
  const allergic = /\bI am (?:very |severely |mildly )?allergic to\s+(.+)$/i.exec(text);
  const raw = allergy ? (allergy[1] as string) : allergic?.[1];
  if (!raw) return [];
  const parts = raw.split(/\s*,\s*|\s+and\s+|\s+or\s+/);
  // "allergic to shellfish, found out the hard way": the list ends where a verb starts a new statement.
  const listed = parts.findIndex((part, index) => index > 0 && input.clause.tagsOf(part.split(/\s+/)[0] ?? "").has("Verb"));
  const allergens = (listed === -1 ? parts : parts.slice(0, listed))
    .map((part) => objectPhrase(part))
    .filter((part): part is string => part !== null);
  return allergens.map((allergen) =>
    fact(input, { key: `allergy:${slug(allergen)}`, value: allergen, content: `User is allergic to ${allergen}.` }),
  );
};
