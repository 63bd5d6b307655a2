import type { ExtractedFact, TraitEvidenceCandidate } from "../../extraction.js";
import { objectPhrase, saysAnymore, slug, thingPhrase } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";

const THIRD_PERSON: Record<string, string> = {
  love: "loves",
  like: "likes",
  adore: "adores",
  enjoy: "enjoys",
  prefer: "prefers",
  hate: "hates",
  dislike: "dislikes",
  detest: "detests",
  loathe: "loathes",
};
const PRESENT: Record<string, string> = { liked: "like", loved: "love", enjoyed: "enjoy" };
const POSITIVE = new Set(["love", "like", "adore", "enjoy", "prefer"]);
const STRONG = new Set(["love", "adore", "hate", "detest", "loathe"]);

const ATTITUDE =
  /\bI\s+(?:(really|absolutely|totally|truly|just|so|also|still)\s+)?(?:(do not|no longer|never|did not)\s+)?(?:(really|much)\s+)?(love|like|adore|enjoy|prefer|hate|dislike|detest|loathe)\s+(.+)$/i;
const CANT_STAND = /\bI\s+(?:can not|cannot)\s+stand\s+(.+)$/i;
const FAN = /\bI am (not )?(?:a |an )?(?:huge |big |massive )?fan of\s+(.+)$/i;

interface Attitude {
  phrase: string;
  polarity: -1 | 0 | 1;
  object: string;
  strong: boolean;
}

/** "My wife loves jazz, but I can't stand it": the thing someone else's taste names before the user's pronoun. */
const OTHERS_TASTE =
  /\b(?:my|our)\s+\p{L}+(?:\s+\p{Lu}\p{L}+)?\s+(?:really\s+)?(?:loves|likes|adores|enjoys|hates|dislikes|is into|is obsessed with|is a (?:huge |big )?fan of)\s+([^,;.]+)/iu;

/** The user's clause with a pronoun object ("it", "them") given the thing another person's taste in its sentence names. */
function withAntecedent(text: string, sentence: string): string {
  const pronoun = /\b(it|them|that)\s*[.!]?$/i.exec(text);
  if (!pronoun) return text;
  const before = sentence.slice(0, Math.max(0, sentence.indexOf(text)));
  const other = OTHERS_TASTE.exec(before);
  return other ? `${text.slice(0, pronoun.index)}${(other[1] as string).trim()}` : text;
}

function readAttitude(text: string): Attitude | null {
  // "I never liked country music": a negated past liking is a dislike too.
  const attitude = ATTITUDE.exec(
    text.replace(
      /\b(never|did not) (liked|loved|enjoyed)\b/i,
      (_all, negation: string, verb: string) => `${negation} ${PRESENT[verb.toLowerCase()]}`,
    ),
  );
  if (attitude) {
    const verb = (attitude[4] as string).toLowerCase();
    const negation = attitude[2]?.toLowerCase();
    const object = thingPhrase(attitude[5] as string);
    // "I don't hate it" says little: only a negated liking is a dislike.
    if (!object || (negation && !POSITIVE.has(verb))) return null;
    if (negation === "no longer" || (negation && saysAnymore(text)))
      return { phrase: `no longer ${THIRD_PERSON[verb]}`, polarity: 0, object, strong: true };
    if (negation) return { phrase: `doesn't ${verb}`, polarity: -1, object, strong: Boolean(attitude[1]) };
    return {
      phrase: THIRD_PERSON[verb] as string,
      polarity: POSITIVE.has(verb) ? 1 : -1,
      object,
      strong: STRONG.has(verb) || Boolean(attitude[1]),
    };
  }
  const cantStand = CANT_STAND.exec(text);
  const cantStandObject = cantStand ? thingPhrase(cantStand[1] as string) : null;
  if (cantStandObject) return { phrase: "can't stand", polarity: -1, object: cantStandObject, strong: true };
  const fan = FAN.exec(text);
  const fanObject = fan ? thingPhrase(fan[2] as string) : null;
  if (fan && fanObject)
    return fan[1]
      ? { phrase: "isn't a fan of", polarity: -1, object: fanObject, strong: false }
      : { phrase: "is a fan of", polarity: 1, object: fanObject, strong: false };
  return null;
}

/**
 * Likes and dislikes with their negations: a fact under `attitude:<object>`, and evidence for
 * the matching trait and against its opposite, so a changed taste moves the traits too.
 */
export function attitudes(input: RuleInput): { facts: ExtractedFact[]; traits: TraitEvidenceCandidate[] } {
  const attitude = readAttitude(withAntecedent(input.clause.text, input.clause.sentence));
  if (!attitude) return { facts: [], traits: [] };
  const { phrase, polarity, object, strong } = attitude;
  const facts = [
    fact(input, {
      type: "preference",
      key: `attitude:${slug(object)}`,
      value: { attitude: phrase, polarity, object },
      content: `User ${phrase} ${object}.`,
      confidence: strong ? 0.95 : 0.85,
    }),
  ];
  if (polarity === 0) return { facts, traits: [] };
  const quality = strong ? "A" : "B";
  const [kept, opposite] = polarity > 0 ? ["likes", "dislikes"] : ["dislikes", "likes"];
  const evidence = (key: string, direction: "supporting" | "contradicting"): TraitEvidenceCandidate => ({
    subtype: "preference",
    key: `${key}:${slug(object)}`,
    content: `User ${key} ${object}.`,
    direction,
    quality,
    source_seqs: input.sourceSeqs,
  });
  return { facts, traits: [evidence(kept, "supporting"), evidence(opposite as string, "contradicting")] };
}

/** "My favourite band is Radiohead": `favorite:band`, British and American spellings one key. */
export const favorites: FactRule = (input) => {
  const match = /\bmy\s+(?:all[- ]time\s+)?favou?rite\s+([\p{L}\s]{2,30}?)\s+(?:is|are|was)\s+(?:still\s+)?(.+)$/iu.exec(input.clause.text);
  const value = match ? objectPhrase(match[2] as string) : null;
  if (!match || !value) return [];
  const category = (match[1] as string).trim();
  return [
    fact(input, {
      type: "preference",
      key: `favorite:${slug(category)}`,
      value: { category, value },
      content: `User's favorite ${category} is ${value}.`,
    }),
  ];
};

/** What the user eats, drinks or smokes, and stopped: "I drink coffee every morning", "I do not eat pork", "I gave up sugar", "I quit smoking". */
export const consumption: FactRule = (input) => {
  const { text } = input.clause;
  const quitHabit = /\bI (?:just |finally )?(?:quit|stopped|gave up) (drinking alcohol|smoking|vaping|drinking)\b/i.exec(text);
  if (quitHabit) {
    const habit = (quitHabit[1] as string).toLowerCase();
    return [
      fact(input, { type: "preference", key: `consumes:${slug(habit)}`, value: { habit, stopped: true }, content: `User quit ${habit}.` }),
    ];
  }
  // "I'm teetotal", "I've been sober since May": alcohol, stopped.
  if (
    /\bI (?:am|have been) (?:now |completely |totally )?(?:teetotal|sober|alcohol-free|off (?:the )?(?:booze|alcohol|drink))\b|^been (?:teetotal|sober)\b/i.test(
      text,
    )
  )
    return [
      fact(input, {
        type: "preference",
        key: "consumes:alcohol",
        value: { habit: "alcohol", stopped: true },
        content: "User no longer drinks alcohol.",
      }),
    ];
  const gaveUp =
    /\bI (?:just |finally )?(?:gave up|quit|cut out) (?!my\b|the\b|on\b|because\b|since\b|when\b|after\b|as\b|so\b)(.+)$/i.exec(text);
  const gaveUpObject = gaveUp ? objectPhrase(gaveUp[1] as string) : null;
  if (gaveUpObject && /^\p{Ll}/u.test(gaveUpObject)) {
    return [
      fact(input, {
        type: "preference",
        key: `consumes:${slug(gaveUpObject)}`,
        value: { item: gaveUpObject, stopped: true },
        content: `User gave up ${gaveUpObject}.`,
      }),
    ];
  }
  const match = /\bI (?:(do not|no longer|never) )?(?:usually |always |often )?(drink|eat|smoke)\s+(.+)$/i.exec(text);
  const item = match ? objectPhrase(match[3] as string) : null;
  if (!match || !item) return [];
  const verb = (match[2] as string).toLowerCase();
  const noLonger = match[1]?.toLowerCase() === "no longer" || (match[1] !== undefined && saysAnymore(text));
  const phrase = noLonger ? `no longer ${verb}s` : match[1] ? `doesn't ${verb}` : `${verb}s`;
  return [
    fact(input, {
      type: "preference",
      key: `consumes:${slug(item)}`,
      value: { item, verb, ...(match[1] ? { stopped: noLonger, never: !noLonger } : {}) },
      content: `User ${phrase} ${item}.`,
    }),
  ];
};

/** Disciplines people "do" or "practise" as a pastime. */
const DISCIPLINES =
  "yoga|pilates|karate|judo|jiu[- ]jitsu|taekwondo|kung fu|aikido|kickboxing|boxing|tai chi|crossfit|parkour|ballet|salsa|tango|archery|fencing|rowing|gymnastics|calisthenics|meditation|weightlifting|powerlifting|triathlons?|spin|zumba|barre|aerobics|martial arts";

/** Instruments, sports and games the user plays, "I go climbing", "I am into photography", "my hobby is …", "I am learning Spanish". */
export const hobbies: FactRule = (input) => {
  const { text, tagsOf } = input.clause;
  const facts = [];
  const plays = /\bI (?:play|still play) (?!with\b|a\b|an\b|some\b|around\b|it\b)(.+)$/i.exec(text);
  const goes = /\bI (?:go|love going|often go|usually go) (\p{L}+ing)\b/iu.exec(text);
  // "I do yoga twice a week", "I practise judo": disciplines one does, by name.
  const does = new RegExp(`\\bI (?:do|practi[cs]e|train in|teach myself) (${DISCIPLINES})\\b`, "i").exec(text);
  const into = /\bI am (?:really |very |totally |super )?into (.+)$/i.exec(text);
  const hobby = /\bmy (?:favorite |favourite )?hobb(?:y is|ies are) (.+)$/i.exec(text);
  const tookUp =
    /\bI (?:took|have taken|have just taken|recently took|finally took) up (?!the\b|a\b|an\b|my\b|your\b|his\b|her\b|their\b|our\b|some\b|space\b|time\b|room\b)(.+)$/i.exec(
      text,
    );
  const speaks =
    /\bI (?:also )?speak (?:(?:fluent|some|a little|a bit of|basic|decent|good|conversational)\s+)?(\p{Lu}\p{L}+)(?:(?:,\s*|\s+and\s+)(?:(?:fluent|some|a little|a bit of|basic|decent|good|conversational)\s+)?(\p{Lu}\p{L}+))?/u.exec(
      text,
    );
  const learning =
    /\bI (?:am|have been|just started|started|recently started|began) (?:learning|taking) (?!how\b|to\b|about\b)(.+?)(?:\s+lessons)?$/i.exec(
      text,
    );
  // "taking a pottery class" is learning; "taking a year out", "taking the bus" are not.
  const notTaught =
    learning !== null &&
    /\btaking (?:a|an|the|some|my|time|it)\b/i.test(learning[0]) &&
    !/\b(?:class|classes|course|lessons?|workshop)\b/i.test(learning[1] as string);
  for (const [match, verb] of [
    [plays, "plays"],
    [goes, "goes"],
    [into, "is into"],
    [tookUp, "took up"],
    [does, "does"],
  ] as const) {
    const activity = match ? objectPhrase(match[1] as string) : null;
    const tags = activity ? tagsOf(activity.split(" ")[0] as string) : undefined;
    if (!activity || !(tags?.has("Noun") || tags?.has("Gerund")) || activity.split(" ").length > 3) continue;
    const shown = verb === "plays" && /^the\s/i.test(match?.[1] ?? "") ? `the ${activity}` : activity;
    facts.push(fact(input, { type: "preference", key: `hobby:${slug(activity)}`, value: activity, content: `User ${verb} ${shown}.` }));
  }
  if (hobby) {
    for (const part of (hobby[1] as string).split(/\s*,\s*|\s+and\s+/)) {
      const activity = objectPhrase(part);
      if (activity)
        facts.push(
          fact(input, { type: "preference", key: `hobby:${slug(activity)}`, value: activity, content: `User's hobby is ${activity}.` }),
        );
    }
  }
  for (const language of speaks ? [speaks[1], speaks[2]] : [])
    if (language && input.clause.tagsOf(language).has("ProperNoun"))
      facts.push(
        fact(input, { type: "preference", key: `language:${slug(language)}`, value: language, content: `User speaks ${language}.` }),
      );
  const subject = learning && !notTaught ? objectPhrase(learning[1] as string) : null;
  if (
    subject &&
    !/^(?:a )?(?:ton|lot|bunch|bit|little|thing|things|stuff|so much|much|more|new things|everything|something)$/i.test(subject)
  )
    facts.push(
      fact(input, { type: "preference", key: `learning:${slug(subject)}`, value: subject, content: `User is learning ${subject}.` }),
    );
  return facts;
};
