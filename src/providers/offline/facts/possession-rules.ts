import { objectPhrase, slug } from "./phrases.js";
import { type FactRule, fact } from "./rule.js";

/** Things people own whose "I have a …" is a possession, not a cold, a question or a meeting. */
const OWNABLE =
  /\b(?:car|truck|van|motorbike|motorcycle|scooter|bike|bicycle|boat|sailboat|yacht|caravan|camper|rv|house|home|flat|apartment|condo|cabin|cottage|garden|allotment|piano|keyboard|guitar|violin|cello|drum kit|drums|ukulele|harmonica|saxophone|trumpet|flute|laptop|computer|pc|macbook|ipad|tablet|phone|iphone|kindle|e-reader|camera|drone|playstation|xbox|switch|console|tv|telescope|sewing machine|3d printer|espresso machine|coffee machine|record player|turntable|smartwatch|watch|tent|kayak|canoe|surfboard|snowboard|skis|horse)\b/i;
/** Makes and models: "a 2015 Subaru Outback", "a Honda Civic". */
const MAKE = /(?:^|\s)\p{Lu}/u;

/**
 * What the user owns: "I drive a 2015 Subaru Outback", "I own a small sailboat", "I have an old
 * Kindle", "we just bought a caravan", "I use a MacBook Air"; "I don't own a car" as a fact of its
 * own. A thing of the list above or a make named with a capital; "I have a question" is not one.
 */
export const possessions: FactRule = (input) => {
  const { text } = input.clause;
  const none = /\bI (?:do not|don't) (?:own|have) (?:a|an) (car|bike|tv|television|smartphone|phone|house)\b/i.exec(text);
  if (none) {
    const thing = (none[1] as string).toLowerCase();
    return [fact(input, { key: `owns:${slug(thing)}`, value: { thing, polarity: -1 }, content: `User does not own a ${thing}.` })];
  }
  const owns =
    /\b(?:I|we) (?:(?:still|also|now|finally|just|recently) )?(?:own|drive|ride|have got|have|got|bought|use|play on) (?:a |an |two |our |my |an old |a new |a used |a vintage |a little |a small |a big )?(.+)$/i.exec(
      text,
    );
  const raw = owns?.[1];
  // "I have not touched the cello", "I have sold my bike": "have" is the auxiliary, not ownership.
  const first = raw?.split(/\s+/)[0] ?? "";
  if (!raw || /^to\s/i.test(raw) || /^(?:not|never|no longer)\b/i.test(raw) || input.clause.tagsOf(first).has("Verb")) return [];
  const thing = objectPhrase(raw.replace(/\s+(?:for|to|that|which|i|we)\b.*$/i, ""));
  if (!thing || thing.split(" ").length > 5) return [];
  const verb = /\b(drive|ride|bought|use|own)\b/i.exec(owns?.[0] ?? "")?.[1]?.toLowerCase();
  // The owned thing is the phrase's head: "a red Mazda", not "feed a horse a carrot".
  const head = thing.split(" ").at(-1) as string;
  if (!OWNABLE.test(head) && !OWNABLE.test(thing.split(" ").slice(-2).join(" ")) && !(MAKE.test(thing) && verb !== undefined)) return [];
  const said = verb === "drive" ? "drives" : verb === "ride" ? "rides" : verb === "use" ? "uses" : "has";
  return [
    fact(input, {
      key: `owns:${slug(thing)}`,
      value: { thing },
      content: `User ${said} ${/^[aeiou]/i.test(thing) ? "an" : "a"} ${thing}.`,
    }),
  ];
};
