import type { ExtractedFact, Extraction, TraitEvidenceCandidate } from "../extraction.js";
import type { ExtractionRequest } from "../types.js";

/**
 * Offline extraction (C2) by rules over the user's own sentences: likes and dislikes with their
 * negations, favourites, profile statements (name, age, home, origin, work, birthday, family,
 * pets, diet, allergies), standing rules for the assistant, explicit "remember" requests and
 * habitual behaviour. Deterministic and conservative: a sentence that matches no rule yields
 * nothing, and pronoun objects ("I love it") are skipped because rules cannot resolve them.
 */
export function extractByRules(request: ExtractionRequest): Extraction {
  const extraction: Extraction = { facts: [], insights: [], traits: [] };
  for (const turn of request.turns) {
    if (turn.role !== "user") continue;
    for (const sentence of sentences(turn.content)) {
      const found = extractSentence(sentence, turn.seq);
      extraction.facts.push(...found.facts);
      extraction.traits.push(...found.traits);
    }
  }
  return extraction;
}

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

function sentences(text: string): string[] {
  return [...segmenter.segment(text)].map(({ segment }) => segment.trim().replace(/\s+/g, " ")).filter((sentence) => sentence.length > 0);
}

/** Words that qualify the statement, not its object: "I hate cats now" is about cats. */
const TRAILING_ADVERBS = new Set([
  "now",
  "anymore",
  "too",
  "also",
  "either",
  "lately",
  "nowadays",
  "today",
  "really",
  "much",
  "lot",
  "again",
  "though",
  "honestly",
]);
const PRONOUNS = new Set(["it", "that", "this", "them", "you", "him", "her", "those", "these", "one", "so", "much", "lot", "what"]);
const CLAUSE_END =
  /\s+(?:because|but|since|when|while|though|although|so|and i|and my|which|if|as|for|with|at|in|on|last|next|after|before)\s+|[.,;:!?()]/i;

/** The object of a statement: up to the end of its clause, without leading articles, at most six words. */
function objectPhrase(raw: string): string | null {
  const clause = raw.split(CLAUSE_END)[0] ?? "";
  const words = clause
    .trim()
    .replace(/^(?:the|a|an|my|to|about|doing|being)\s+/i, "")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6);
  while (words.length > 1 && TRAILING_ADVERBS.has((words[words.length - 1] as string).toLowerCase())) words.pop();
  const phrase = words.join(" ").replace(/[^\p{L}\p{N}' -]+$/u, "");
  if (phrase.length < 2 || PRONOUNS.has(phrase.toLowerCase())) return null;
  return phrase;
}

/** A key fragment: lower-case words joined by "_", a trailing plural "s" dropped. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .split(/\s+/)
    .slice(0, 6)
    .map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word))
    .join("_");
}

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
const POSITIVE = new Set(["love", "like", "adore", "enjoy", "prefer"]);
const STRONG = new Set(["love", "adore", "hate", "detest", "loathe"]);

const ATTITUDE =
  /\bI\s+(?:(really|absolutely|totally|truly|just|so|also)\s+)?(?:(do not|don't|dont|no longer|never|didn't)\s+)?(?:(really|much)\s+)?(love|like|adore|enjoy|prefer|hate|dislike|detest|loathe)\s+(.+)$/i;
const CANT_STAND = /\bI\s+(?:can't|cannot|can not)\s+stand\s+(.+)$/i;
const FAVORITE = /\bmy\s+(?:all[- ]time\s+)?favou?rite\s+([\p{L}\s]{2,30}?)\s+(?:is|are|was)\s+(.+)$/iu;

interface Found {
  facts: ExtractedFact[];
  traits: TraitEvidenceCandidate[];
}

function extractSentence(sentence: string, seq: number): Found {
  const found: Found = { facts: [], traits: [] };
  const source_seqs = [seq];
  const remember = /\b(?:please\s+)?(?:remember|don't forget|do not forget|note)\s+(?:that\s+)?(.+)$/i.exec(sentence);
  const body = remember?.[1] ?? sentence;

  const attitude = ATTITUDE.exec(body) ?? null;
  const cantStand = attitude ? null : CANT_STAND.exec(body);
  if (attitude || cantStand) {
    const verb = attitude ? (attitude[4] as string).toLowerCase() : "hate";
    const negation = attitude?.[2]?.toLowerCase();
    const object = objectPhrase(attitude ? (attitude[5] as string) : (cantStand?.[1] as string));
    if (object && !(negation && !POSITIVE.has(verb))) {
      const positive = POSITIVE.has(verb) && !negation;
      const noLonger = negation === "no longer";
      const polarity = noLonger ? 0 : positive ? 1 : -1;
      const phrase = noLonger
        ? `no longer ${THIRD_PERSON[verb]}`
        : negation
          ? `doesn't ${verb}`
          : cantStand
            ? "can't stand"
            : (THIRD_PERSON[verb] as string);
      found.facts.push({
        type: "preference",
        key: `attitude:${slug(object)}`,
        value: { attitude: phrase, polarity, object },
        content: `User ${phrase} ${object}.`,
        confidence: STRONG.has(verb) || attitude?.[1] ? 0.95 : 0.85,
        operation: "ADD",
        source_seqs,
      });
      if (polarity !== 0) {
        const quality = STRONG.has(verb) || attitude?.[1] || cantStand ? "A" : "B";
        const [kept, opposite] = polarity > 0 ? ["likes", "dislikes"] : ["dislikes", "likes"];
        found.traits.push(
          {
            subtype: "preference",
            key: `${kept}:${slug(object)}`,
            content: `User ${kept} ${object}.`,
            direction: "supporting",
            quality,
            source_seqs,
          },
          {
            subtype: "preference",
            key: `${opposite}:${slug(object)}`,
            content: `User ${opposite} ${object}.`,
            direction: "contradicting",
            quality,
            source_seqs,
          },
        );
      }
    }
  }

  const favorite = FAVORITE.exec(body);
  if (favorite) {
    const category = (favorite[1] as string).trim();
    const value = objectPhrase(favorite[2] as string);
    if (value) {
      found.facts.push({
        type: "preference",
        key: `favorite:${slug(category)}`,
        value: { category, value },
        content: `User's favorite ${category} is ${value}.`,
        confidence: 0.9,
        operation: "ADD",
        source_seqs,
      });
    }
  }

  found.facts.push(...profileFacts(body, source_seqs));
  const rule = ruleFact(body, source_seqs);
  if (rule) found.facts.push(rule);
  const habit = habitTrait(body, source_seqs);
  if (habit) found.traits.push(habit);

  if (remember && found.facts.length === 0) {
    const clause = (remember[1] as string).replace(/[.!?]+$/, "");
    found.facts.push({
      type: "profile",
      key: `note:${slug(clause)}`,
      value: clause,
      content: `User asked to remember: ${clause}.`,
      confidence: 0.95,
      operation: "ADD",
      source_seqs,
    });
  }
  return found;
}

type ProfileRule = {
  pattern: RegExp;
  key: (match: RegExpExecArray) => string;
  content: (value: string, match: RegExpExecArray) => string;
  operation?: "DELETE";
  raw?: boolean;
};

const RELATIONS = "wife|husband|partner|boyfriend|girlfriend|son|daughter|brother|sister|mom|mother|dad|father|dog|cat|best friend";
const PROFILE_RULES: ProfileRule[] = [
  {
    pattern: /\b[Mm]y name is\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)/,
    key: () => "profile:name",
    content: (v) => `User's name is ${v}.`,
    raw: true,
  },
  { pattern: /\bI(?:'m| am)\s+(\d{1,3})\s+years?\s+old/i, key: () => "profile:age", content: (v) => `User is ${v} years old.`, raw: true },
  {
    pattern: /\bI\s+no longer\s+live\s+in\s+(.+)$/i,
    key: () => "profile:location",
    content: (v) => `User no longer lives in ${v}.`,
    operation: "DELETE",
  },
  {
    pattern: /\bI\s+(?:currently\s+)?(?:live|am living|'m living)\s+in\s+(.+)$/i,
    key: () => "profile:location",
    content: (v) => `User lives in ${v}.`,
  },
  {
    pattern: /\bI\s+(?:just\s+|recently\s+|have\s+)?moved\s+to\s+(.+)$/i,
    key: () => "profile:location",
    content: (v) => `User lives in ${v}.`,
  },
  { pattern: /\bI(?:'m| am)\s+(?:originally\s+)?from\s+(.+)$/i, key: () => "profile:origin", content: (v) => `User is from ${v}.` },
  { pattern: /\bI\s+work\s+as\s+(?:an?\s+)?(.+)$/i, key: () => "profile:occupation", content: (v) => `User works as ${v}.` },
  { pattern: /\bI\s+work\s+(?:at|for)\s+(.+)$/i, key: () => "profile:employer", content: (v) => `User works at ${v}.` },
  { pattern: /\bmy birthday is\s+(?:on\s+)?(.+)$/i, key: () => "profile:birthday", content: (v) => `User's birthday is ${v}.` },
  {
    pattern: new RegExp(`\\bmy\\s+(${RELATIONS})(?:'s name)?\\s+is\\s+(?:called\\s+|named\\s+)?([A-Z][\\w'-]+)`, "i"),
    key: (m) => `profile:${slug(m[1] as string)}`,
    content: (_v, m) => `User's ${(m[1] as string).toLowerCase()} is ${m[2]}.`,
  },
  {
    pattern: new RegExp(`\\bI\\s+have\\s+an?\\s+(${RELATIONS})\\s+(?:called|named)\\s+([A-Z][\\w'-]+)`, "i"),
    key: (m) => `profile:${slug(m[1] as string)}`,
    content: (_v, m) => `User's ${(m[1] as string).toLowerCase()} is ${m[2]}.`,
  },
  {
    pattern: /\bI(?:'m| am)\s+(?:a\s+)?(vegetarian|vegan|pescatarian)\b/i,
    key: () => "profile:diet",
    content: (v) => `User is ${v.toLowerCase()}.`,
    raw: true,
  },
  {
    pattern: /\bI(?:'m| am)\s+allergic to\s+(.+)$/i,
    key: (m) => `profile:allergy:${slug(objectPhrase(m[1] as string) ?? "")}`,
    content: (v) => `User is allergic to ${v}.`,
  },
];

function profileFacts(sentence: string, source_seqs: number[]): ExtractedFact[] {
  const facts: ExtractedFact[] = [];
  const seen = new Set<string>();
  for (const rule of PROFILE_RULES) {
    const match = rule.pattern.exec(sentence);
    if (!match) continue;
    const captured = match[match.length - 1] as string;
    const value = rule.raw ? captured : objectPhrase(captured);
    const key = rule.key(match);
    if (!value || seen.has(key) || key.endsWith(":")) continue;
    seen.add(key);
    facts.push({
      type: "profile",
      key,
      value,
      content: rule.content(value, match),
      confidence: 0.9,
      operation: rule.operation ?? "ADD",
      source_seqs,
    });
  }
  return facts;
}

/** A standing instruction to the assistant: "Always answer in German", "From now on, call me Sam". */
function ruleFact(sentence: string, source_seqs: number[]): ExtractedFact | null {
  const match = /^(?:please\s+)?(?:(always|never|don't ever|do not ever)\s+|from now on,?\s+)(.+?)[.!]?$/i.exec(sentence);
  if (!match || /^I\b/i.test(match[2] as string)) return null;
  const instruction = `${match[1] ? `${(match[1] as string).toLowerCase()} ` : ""}${match[2]}`;
  return {
    type: "rule",
    key: `rule:${slug(match[2] as string)}`,
    value: instruction,
    content: `User's rule: ${instruction}.`,
    confidence: 0.9,
    operation: "ADD",
    source_seqs,
  };
}

const HABIT_QUALITY: Record<string, "A" | "B" | "C"> = {
  always: "A",
  never: "A",
  usually: "B",
  normally: "B",
  often: "B",
  sometimes: "C",
  rarely: "C",
};

/** Habitual behaviour ("I usually cycle to work") is evidence for a behaviour trait. */
function habitTrait(sentence: string, source_seqs: number[]): TraitEvidenceCandidate | null {
  const match = /\bI\s+(always|usually|normally|often|never|sometimes|rarely)\s+(.+)$/i.exec(sentence);
  const phrase = match ? objectPhrase(match[2] as string) : null;
  if (!match || !phrase) return null;
  const adverb = (match[1] as string).toLowerCase();
  return {
    subtype: "behavior",
    key: `behavior:${adverb === "never" ? "never_" : ""}${slug(phrase)}`,
    content: `User says they ${adverb} ${phrase}.`,
    direction: "supporting",
    quality: HABIT_QUALITY[adverb] as "A" | "B" | "C",
    source_seqs,
  };
}
