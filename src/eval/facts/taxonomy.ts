/**
 * The kinds of self-statement the fact sets are labelled by (docs/facts.md has, for each, what
 * the offline extractor reads and what it leaves to the LLM). `instructions` are the user's
 * standing rules and "remember that…" notes: written by the extractor, never labelled in the
 * conversations, so they only ever count against precision.
 */
export const KINDS = [
  "identity",
  "family",
  "pets",
  "home",
  "work",
  "education",
  "languages",
  "possessions",
  "hobbies",
  "health",
  "tastes",
  "habits",
  "dates",
  "instructions",
] as const;
export type Kind = (typeof KINDS)[number];

const PROFILE_KINDS: Record<string, Kind> = {
  name: "identity",
  age: "identity",
  gender: "identity",
  pronouns: "identity",
  religion: "identity",
  nationality: "identity",
  identity: "identity",
  personality: "identity",
  location: "home",
  origin: "home",
  occupation: "work",
  employer: "work",
  work_status: "work",
  studies: "education",
  alma_mater: "education",
  education: "education",
  partner: "family",
  relationship_status: "family",
  children: "family",
  birthday: "dates",
  diet: "health",
};

const NAMESPACE_KINDS: Record<string, Kind> = {
  family: "family",
  pet: "pets",
  language: "languages",
  owns: "possessions",
  hobby: "hobbies",
  learning: "hobbies",
  allergy: "health",
  health: "health",
  attitude: "tastes",
  favorite: "tastes",
  consumes: "habits",
  habit: "habits",
  date: "dates",
  rule: "instructions",
  note: "instructions",
};

/**
 * The kind of a fact by its key: `profile:location` is home, `family:daughter:mia` family,
 * `family:mother:birthday` a date, `learning:japanese` a language when the words name one.
 */
export function kindOfKey(key: string, content = ""): Kind {
  const [namespace = "", attribute = ""] = key.split(":");
  if (key.endsWith(":birthday") || key.endsWith(":anniversary")) return "dates";
  if (namespace === "profile") return PROFILE_KINDS[attribute] ?? "identity";
  if (namespace === "learning" && /\b(?:language|speak|\p{Lu}\p{Ll}+(?:ese|ish|ian|ic|ch|an))\b/u.test(content)) return "languages";
  return NAMESPACE_KINDS[namespace] ?? "identity";
}
