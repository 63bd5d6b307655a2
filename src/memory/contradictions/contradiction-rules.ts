import { type FactLike, type FactSubject, sameThing, subjectOf } from "../../providers/facts/fact-subject.js";
import { canonicalAttribute } from "../../vocabulary/fact-attributes.js";

/** A current memory a new statement makes untrue, and why. */
export interface Contradiction<T> {
  held: T;
  reason: string;
}

/** Families by what they hold: a taste, a practice (habit, hobby, possession, language), a person or animal. */
const GROUPS: Record<string, "taste" | "practice" | "people"> = {
  attitude: "taste",
  favorite: "taste",
  likes: "taste",
  dislikes: "taste",
  consumes: "practice",
  hobby: "practice",
  habit: "practice",
  learning: "practice",
  language: "practice",
  owns: "practice",
  behavior: "practice",
  family: "people",
  pet: "people",
  "profile:partner": "people",
};

const NOT_PARTNERED = /\b(?:single|divorced|widowed|separated|unattached)\b/i;
const NOT_EMPLOYED = /\b(?:retired|unemployed|between jobs|out of work|not working|jobless|stay[- ]at[- ]home|laid off|let go|no job)\b/i;
const said = (fact: FactLike) => `${fact.content} ${typeof fact.value === "string" ? fact.value : JSON.stringify(fact.value)}`;

/**
 * Attributes of which a user has one state at a time, beyond one value per key: a partner or
 * none, an employer or none. Each rule says whether a new fact of one attribute ends a held fact
 * of another.
 */
const EXCLUSIVE: { ends: (fact: FactLike, attribute: string, held: FactLike, heldAttribute: string) => boolean; reason: string }[] = [
  {
    reason: "single now",
    ends: (fact, attribute, _held, heldAttribute) =>
      attribute === "profile:relationship_status" && NOT_PARTNERED.test(said(fact)) && heldAttribute === "profile:partner",
  },
  {
    reason: "a partner now",
    ends: (_fact, attribute, held, heldAttribute) =>
      attribute === "profile:partner" && heldAttribute === "profile:relationship_status" && NOT_PARTNERED.test(said(held)),
  },
  {
    reason: "no longer employed",
    ends: (fact, attribute, _held, heldAttribute) =>
      (attribute === "profile:occupation" || attribute === "profile:work_status") &&
      NOT_EMPLOYED.test(said(fact)) &&
      (heldAttribute === "profile:employer" || heldAttribute === "profile:occupation" || heldAttribute === "profile:work_status"),
  },
  {
    reason: "employed now",
    ends: (_fact, attribute, held, heldAttribute) =>
      (attribute === "profile:employer" || attribute === "profile:occupation") &&
      (heldAttribute === "profile:work_status" || heldAttribute === "profile:occupation") &&
      NOT_EMPLOYED.test(said(held)),
  },
];

/**
 * The current memories a new statement contradicts, beyond the value its own key held (which
 * consolidation supersedes anyway): an exclusive attribute (single now ends the partner; retired
 * ends the employer); a thing that ended or is now disliked ends every current taste, habit,
 * hobby, possession or trait about the same thing ("I don't drink coffee anymore" ends "User loves
 * coffee." too; a dislike only ends tastes); a person or animal that is gone ends what names them.
 * A retraction (`operation: "DELETE"`) reads as its sentence does.
 *
 * @example
 * contradictedBy(
 *   { key: "consumes:coffee", value: { item: "coffee", stopped: true }, content: "User no longer drinks coffee." },
 *   [{ key: "attitude:coffee", value: { polarity: 1, object: "coffee" }, content: "User loves coffee." }],
 * ) // → [{ held: <the attitude>, reason: "no longer: same thing (coffee)" }]
 */
export function contradictedBy<T extends FactLike>(fact: FactLike & { operation?: string }, current: readonly T[]): Contradiction<T>[] {
  const attribute = canonicalAttribute(fact.key);
  // A retraction ends its thing only when its sentence says so ("User no longer drinks coffee."); a
  // correction's retraction of a misspelt name ends nothing.
  const subject = subjectOf(fact);
  const found: Contradiction<T>[] = [];
  for (const held of current) {
    const heldAttribute = canonicalAttribute(held.key);
    if (heldAttribute === attribute) continue;
    const exclusive = fact.operation === "DELETE" ? undefined : EXCLUSIVE.find((rule) => rule.ends(fact, attribute, held, heldAttribute));
    const reason = exclusive ? exclusive.reason : endedThing(subject, subjectOf(held));
    if (reason) found.push({ held, reason });
  }
  return found;
}

/** Why a held fact ends with a statement about the same thing, or null. */
function endedThing(statement: FactSubject, held: FactSubject): string | null {
  const [group, heldGroup] = [GROUPS[statement.family], GROUPS[held.family]];
  if (!group || !heldGroup || statement.polarity === 1 || held.polarity !== 1 || !sameThing(statement, held)) return null;
  if (group === "people" || heldGroup === "people") {
    const names = [...statement.names].filter((name) => held.names.has(name));
    return group === heldGroup && statement.polarity === 0 && names.length > 0 ? `gone: ${names.join(", ")}` : null;
  }
  // A dislike says nothing of a habit ("doesn't like coffee" may still drink it); an end says it of all.
  if (statement.polarity === -1 && heldGroup !== "taste") return null;
  const thing = [...statement.words].join(" ");
  return `${statement.polarity === 0 ? "no longer" : "now dislikes"}: same thing (${thing})`;
}
