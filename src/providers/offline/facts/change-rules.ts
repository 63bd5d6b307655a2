import { canonicalAttribute } from "../../../vocabulary/fact-attributes.js";
import type { ExtractedFact } from "../../extraction.js";
import { sameThing, subjectOf, wordRoots } from "../../facts/fact-subject.js";
import type { KnownFact } from "../../types.js";
import { CONSUMING } from "./change-words.js";
import { PARENTS, SPECIES } from "./family-rules.js";
import { objectPhrase, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";
import { type StateChange, stateChanges } from "./state-changes.js";

const PEOPLE = /^(?:family|pet)(?::|$)|^profile:partner$/;
const PARTNERS = /^profile:partner$|^family:(?:partner|wife|husband|boyfriend|girlfriend|fianc[ée]e?|spouse)(?::|$)/;

/**
 * Changes of state (stateChanges) resolved against the user's current facts. What stays true
 * about the user is written as a fact of its own, under the key it changes so that it supersedes
 * the old value: a stopped consumption ("User quit smoking."), schooling that ended ("User
 * graduated."), a taste that went ("User no longer likes sushi."), a past habit ("User used to go
 * riding."), retirement. What only ends something is a retraction of each current fact it ends,
 * found by name, relation or thing and never guessed: a death, a break-up, a sale, a job or a place
 * left, a habit given up. The write path then ends, by the same reading, every other current fact
 * or trait about the same thing (memory/contradictions).
 */
export const stateChangeFacts: FactRule = (input) => stateChanges(input.clause).flatMap((change) => factsOf(input, change));

function factsOf(input: RuleInput, change: StateChange): ExtractedFact[] {
  const known = [...input.known.values()];
  const retract = (held: KnownFact[], content: string) =>
    held.map((item) => fact(input, { type: "profile", key: item.key, value: content, content, operation: "DELETE" }));
  switch (change.change) {
    case "cessation": {
      const thing = change.thing as string;
      if (CONSUMING.test(thing) || known.some((item) => item.key.startsWith("consumes:") && about(item, thing))) {
        const habit = thing.replace(/^(?:eating|drinking)\s+(?=\S)/i, "");
        return [
          fact(input, {
            type: "preference",
            key: `consumes:${slug(habit)}`,
            value: { habit, stopped: true },
            content: `User quit ${thing}.`,
          }),
        ];
      }
      return retract(
        known.filter((item) => about(item, thing)),
        `User stopped ${thing}.`,
      );
    }
    case "past": {
      const said = objectPhrase(change.verb.after) ?? "";
      const thing = change.thing as string;
      const content = `User used to ${change.verb.lemma}${said ? ` ${said}` : ""}.`.replace(/\s+\./, ".");
      return [fact(input, { type: "preference", key: `hobby:${slug(thing)}`, value: { activity: thing, stopped: true }, content })];
    }
    case "rehomed": {
      const held = known.filter((item) => canonicalAttribute(item.key).startsWith("pet:") && names(item, change));
      return retract(held, `${change.names.join(" and ")} went to a new home.`);
    }
    case "death":
    case "breakup": {
      // A parting ends a partner, never a sister or a dog of the same name.
      const people = change.change === "breakup" ? PARTNERS : PEOPLE;
      const held = known.filter((item) => people.test(canonicalAttribute(item.key)) && names(item, change));
      const who = change.names.join(" and ") || change.relations.join(" and ");
      const death = change.names.length > 0 ? `${who} died.` : `User's ${who} died.`;
      return retract(held, change.change === "death" ? death : `User and ${who || "their partner"} separated.`);
    }
    case "sale":
      return retract(
        known.filter(
          (item) => item.key.startsWith("owns:") && (about(item, change.thing as string) || sameKindOfThing(item, change.thing as string)),
        ),
        `User no longer has ${change.thing}.`,
      );
    case "state-ended": {
      const state = (change.thing as string).toLowerCase();
      const attribute = STATE_ATTRIBUTES[state];
      const held = known.filter((item) => {
        const key = canonicalAttribute(item.key);
        if (attribute && key === attribute) return true;
        return key.startsWith("profile:") && typeof item.value === "string" && item.value.toLowerCase() === state;
      });
      return retract(held, `User is no longer ${change.thing}.`);
    }
    case "studies-ended": {
      const how = change.verb.head === "graduate" ? "graduated" : /^(?:drop|quit|leave)/.test(change.verb.head) ? "left" : "finished";
      const studies = known.filter((item) => canonicalAttribute(item.key) === "profile:studies");
      // "I left the school" said by a teaching assistant: the school is where the user works.
      const school = schoolWord(change);
      const workplace = school ? known.filter((item) => isWork(item) && mentions(item, school)) : [];
      if (studies.length === 0 && workplace.length > 0 && how !== "graduated") return retract(workplace, `User left ${change.thing}.`);
      // "I left the school" from someone who holds a job and no studies: likely the workplace, not known which.
      if (studies.length === 0 && how === "left" && /^the\s/i.test(change.verb.after) && known.some(isWork)) return [];
      // "I graduated from Stanford": the school is the alma mater (studies rule); what ends is the studying.
      if (how === "graduated" && /^from\s+\p{Lu}/u.test(change.verb.after)) return retract(studies, "User graduated.");
      // "I graduated! BSc Nursing": the degree said beside it.
      const degree = /\b(?:BSc|BA|MSc|MA|MBA|BEng|MEng|PhD|LLB)\b(?: (?:in )?\p{Lu}[\p{L}-]*(?: \p{Lu}[\p{L}-]*)?)?/u.exec(
        input.clause.message,
      )?.[0];
      const content =
        how === "graduated"
          ? `User graduated${degree ? ` (${degree})` : ""}.`
          : `User ${how === "left" ? (change.verb.head === "drop" ? "dropped out of" : "quit") : "finished"} ${(change.thing as string).replace(/^my\s+/i, "their ")}.`;
      return [fact(input, { key: "profile:studies", value: { status: how }, content })];
    }
    case "job-left": {
      const employer = known.find((item) => canonicalAttribute(item.key) === "profile:employer");
      if (change.verb.head === "retire")
        return [
          ...retract(employer ? [employer] : [], "User retired."),
          fact(input, { key: "profile:occupation", value: "retired", content: "User is retired." }),
        ];
      // Someone who says they left a named employer that is not the one held left an earlier job.
      if (employer && change.mentions && !mentions(employer, change.mentions)) return [];
      // "They let me go": the user no longer works as what they worked as either — unless the same
      // message says the work goes on elsewhere ("same role at another hospital").
      const occupation = KEEPS_WORKING.test(input.clause.message)
        ? undefined
        : known.find((item) => canonicalAttribute(item.key) === "profile:occupation" && item.value !== "retired");
      return retract(
        [employer, occupation].filter((item) => item !== undefined),
        `User left ${change.mentions ?? "their job"}.`,
      );
    }
    case "place-left": {
      const home = known.find((item) => canonicalAttribute(item.key) === "profile:location");
      return home && mentions(home, change.mentions as string) ? retract([home], `User no longer lives in ${change.mentions}.`) : [];
    }
    case "taste-ended":
    case "taste-began": {
      const thing = change.thing as string;
      const [attitude, polarity] = change.change === "taste-ended" ? ["no longer likes", 0] : ["has come to like", 1];
      return [
        fact(input, {
          type: "preference",
          key: `attitude:${slug(thing)}`,
          value: { attitude, polarity, object: thing },
          content: `User ${attitude} ${thing}.`,
        }),
      ];
    }
  }
}

/** A job left for the same work elsewhere: the occupation stays. */
const KEEPS_WORKING =
  /\b(?:same (?:role|job|position|work)|still (?:a|an|working|work|teach|nurs)|another (?:hospital|school|firm|company|practice|clinic|agency|restaurant|team)|new (?:job|role|position|employer)|(?:joined|joining|starting at|start at|moved to|moving to|switched to)\s+\p{Lu})/iu;

const isWork = (item: KnownFact) => /^profile:(?:occupation|employer)$/.test(canonicalAttribute(item.key));

/** The schooling word a studies-ended change names: "school" of "the school in January". */
const schoolWord = (change: StateChange) => /\b(?:school|college|university|uni|academy)\b/i.exec(change.thing ?? "")?.[0];

/** The attribute a state names when its value is another word: "religious" is the religion, whichever it was. */
const STATE_ATTRIBUTES: Record<string, string> = {
  religious: "profile:religion",
  "a believer": "profile:religion",
  "in a relationship": "profile:partner",
  married: "profile:partner",
  engaged: "profile:partner",
  "a student": "profile:studies",
  student: "profile:studies",
  "at uni": "profile:studies",
  "at university": "profile:studies",
  "in school": "profile:studies",
  "at school": "profile:studies",
};

/**
 * A held possession the thing names by its make or by what it is: "my dad's Omega" is "a vintage
 * Omega watch", "the Lisbon flat" is "a small flat".
 */
function sameKindOfThing(held: KnownFact, thing: string): boolean {
  const makes = thing.match(/\b\p{Lu}[\p{L}-]+/gu) ?? [];
  if (makes.some((make) => new RegExp(`\\b${make}\\b`).test(held.content))) return true;
  const head = wordRoots(thing).at(-1);
  return head !== undefined && subjectOf(held).head === head;
}

/** A current fact about `thing` that is still so (the write path's reading: memory/contradictions). */
function about(held: KnownFact, thing: string): boolean {
  const subject = subjectOf(held);
  return subject.polarity === 1 && sameThing(subjectOf({ key: `habit:${slug(thing)}`, value: { object: thing }, content: "" }), subject);
}

/** Relation words as the keys spell them — the family rules' own: "grandpa" is `family:grandfather`, "puppy" a dog. */
const RELATION_KEYS: Readonly<Record<string, string>> = { ...PARENTS, ...SPECIES };

/** Whether a held fact names who the change names; a break-up with no name is the partner's. */
function names(held: KnownFact, change: StateChange): boolean {
  const said = `${held.key} ${held.content} ${JSON.stringify(held.value)}`.toLowerCase();
  if (change.names.length > 0) return change.names.some((name) => new RegExp(`\\b${name.toLowerCase()}\\b`).test(said));
  if (change.relations.length === 0) return change.change === "breakup" && canonicalAttribute(held.key) === "profile:partner";
  return change.relations.some((relation) => held.key.toLowerCase().includes(RELATION_KEYS[relation] ?? relation));
}

function mentions(held: KnownFact, words: string): boolean {
  return `${held.content} ${JSON.stringify(held.value)}`.toLowerCase().includes(words.toLowerCase());
}
