/**
 * The words the change-of-state reader matches on (state-changes.ts): relations, schooling and
 * jobs, light verbs, how long something has lapsed, what ends a thing's phrase, and what is said of
 * a thing that has ended. Kept apart from the reading so that either can be read on its own.
 */
export const RELATIONS =
  "partner|wife|husband|boyfriend|girlfriend|fianc[ée]e?|spouse|son|daughter|brother|sister|mom|mum|mother|dad|father|grandma|grandmother|grandpa|grandad|granddad|grandfather|granny|nana|nanna|nan|aunt|uncle|cousin|niece|nephew|grandson|granddaughter|friend|dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|horse|tortoise|turtle|guinea pig|budgie|ferret|snake|lizard|fish|pet";
export const RELATION_WORDS = new RegExp(`\\b(${RELATIONS})\\b`, "gi");
export const IS_RELATION = new RegExp(`^(?:${RELATIONS})$`, "i");
export const PARTNER_WORDS = /\b(?:partner|wife|husband|boyfriend|girlfriend|fianc[ée]e?|spouse|ex)\b/i;
export const SCHOOLING =
  /\b(?:school|college|university|uni|degree|phd|ph\.d|doctorate|masters?|bachelors?|studies|course|program(?:me)?|apprenticeship|thesis|bootcamp)\b/i;
export const JOB = /\b(?:job|position|role|work|career|company|firm|employer|notice)\b/i;
/** Verbs whose object is a light verb's: "taking the bus" is about the bus. */
export const LIGHT =
  /^(?:taking|doing|having|going to|going|getting|making|using|playing|eating|drinking|on|with|from|at|in|for|of|out of|the habit of|my|the|a|an)\s+/i;
export const CONSUMING = /^(?:drinking|smoking|vaping|eating)\b/i;
/** How long something has not happened: "in over a year", "for months", "since March". */
export const LAPSE =
  /\b(?:(?:in|for) (?:over |more than |almost |nearly |about )?(?:a|an|\d+|two|three|four|five|six|ten|several|many|ages|years|months)(?: (?:years?|months?))?|since \w+)\b.*$/i;
export const THING_END =
  /\s+(?:since|because|after|before|when|while|as|so|but|and|last|this|in|at|on|for|ago|too|anymore|any more|now|these days|nowadays|for good|completely|entirely|altogether|totally|cold turkey|years?|months?|weeks?)\b.*$/i;

/** What says a broken thing is gone: "beyond repair", "back to paperbacks", "need a new one". */
export const FOR_GOOD =
  /\b(?:for good|beyond repair|can ?not be (?:fixed|repaired|saved)|unfixable|write-off|a new one|replace it|replacing it|back to|no more|for ever|forever)\b/i;

/** What a thing is said to be once it has ended for the user. */
export const RULED_OUT =
  /^(?:now |just |definitely |completely )?(?:off the table|out of the question|a thing of the past|off the cards|off limits|done for me|over for me|finished for me)\b/i;
/** What a taste is said not to be (with "no longer" or "any more"). */
export const NOT_MINE = /^(?:really |really my |quite )?(?:for me|for us|my (?:thing|cup of tea|jam|scene))\b/i;
