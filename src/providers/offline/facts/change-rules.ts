import { canonicalAttribute } from "../../../vocabulary/fact-attributes.js";
import type { ExtractedFact } from "../../extraction.js";
import { sameThing, subjectOf } from "../../facts/fact-subject.js";
import type { KnownFact } from "../../types.js";
import { objectPhrase, slug } from "./phrases.js";
import { type FactRule, fact, type RuleInput } from "./rule.js";
import { CONSUMING, type StateChange, stateChanges } from "./state-changes.js";

const PEOPLE = /^(?:family|pet)(?::|$)|^profile:partner$/;

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
    case "death":
    case "breakup": {
      const held = known.filter((item) => PEOPLE.test(canonicalAttribute(item.key)) && names(item, change));
      const who = change.names.join(" and ") || change.relations.join(" and ");
      const death = change.names.length > 0 ? `${who} died.` : `User's ${who} died.`;
      return retract(held, change.change === "death" ? death : `User and ${who || "their partner"} separated.`);
    }
    case "sale":
      return retract(
        known.filter((item) => about(item, change.thing as string)),
        `User no longer has ${change.thing}.`,
      );
    case "studies-ended": {
      const how = change.verb.head === "graduate" ? "graduated" : /^(?:drop|quit|leave)/.test(change.verb.head) ? "left" : "finished";
      const studies = known.filter((item) => canonicalAttribute(item.key) === "profile:studies");
      // "I graduated from Stanford": the school is the alma mater (studies rule); what ends is the studying.
      if (how === "graduated" && /^from\s+\p{Lu}/u.test(change.verb.after)) return retract(studies, "User graduated.");
      const content =
        how === "graduated"
          ? "User graduated."
          : `User ${how === "left" ? (change.verb.head === "drop" ? "dropped out of" : "quit") : "finished"} ${(change.thing as string).replace(/^my\s+/i, "their ")}.`;
      return [fact(input, { key: "profile:studies", value: { status: how }, content })];
    }
    case "job-left": {
      if (change.verb.head === "retire") return [fact(input, { key: "profile:occupation", value: "retired", content: "User is retired." })];
      // The employer ends; the occupation is a profession the user keeps ("a nurse who quit St. Mary's").
      const employer = known.find((item) => canonicalAttribute(item.key) === "profile:employer");
      if (!employer || (change.mentions && !mentions(employer, change.mentions))) return [];
      return retract([employer], `User left ${change.mentions ?? "their job"}.`);
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

/** A current fact about `thing` that is still so (the write path's reading: memory/contradictions). */
function about(held: KnownFact, thing: string): boolean {
  const subject = subjectOf(held);
  return subject.polarity === 1 && sameThing(subjectOf({ key: `habit:${slug(thing)}`, value: { object: thing }, content: "" }), subject);
}

/** Relation words as the keys spell them: "grandpa" is `family:grandfather`. */
const RELATION_KEYS: Record<string, string> = {
  grandpa: "grandfather",
  granny: "grandmother",
  nana: "grandmother",
  grandma: "grandmother",
  mom: "mother",
  mum: "mother",
  dad: "father",
  puppy: "dog",
  kitten: "cat",
  bunny: "rabbit",
};

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
