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
  /\b(?:school|college|university|uni|degree|phd|ph\.d|doctorate|masters?|bachelors?|studies|course|program(?:me)?|apprenticeship|thesis|bootcamp|diploma|certificate|certification|qualification|a-levels|gcses|training)\b/i;
export const JOB = /\b(?:job|position|role|work|career|company|firm|employer|notice)\b/i;
/** Verbs whose object is a light verb's: "taking the bus" is about the bus. */
export const LIGHT =
  /^(?:taking|doing|having|going to|going|getting|making|using|playing|eating|drinking|on|with|from|at|in|for|of|out of|the habit of|my|the|a|an)\s+/i;
/** Words that open what is said without being part of the thing: "Honestly Coldplay isn't my thing". */
export const DISCOURSE =
  /^(?:(?:honestly|frankly|actually|really|tbh|ngl|admittedly|well|personally|lately|to be honest|truth be told|these days|nowadays),?\s+)+/i;
export const CONSUMING = /^(?:drinking|smoking|vaping|eating)\b/i;
/** How long something has not happened: "in over a year", "for months", "since March". */
export const LAPSE =
  /\b(?:(?:in|for) (?:over |more than |almost |nearly |about )?(?:a|an|\d+|two|three|four|five|six|ten|several|many|ages|years|months)(?: (?:years?|months?))?|since \w+)\b.*$/i;
export const THING_END =
  /\s+(?:since|because|after|before|when|while|as|so|but|and|last|this|in|at|on|for|ago|too|anymore|any more|now|these days|nowadays|for good|completely|entirely|altogether|totally|cold turkey|years?|months?|weeks?)\b.*$/i;

/** What says a broken thing is gone: "beyond repair", "back to paperbacks", "need a new one". */
export const FOR_GOOD =
  /\b(?:for good|beyond repair|can ?not be (?:fixed|repaired|saved)|unfixable|write-off|a new one|replace it|replacing it|back to|no more|for ever|forever)\b/i;

/** A death said gently, as verb lemma and what follows: "crossed the rainbow bridge", "passed on", "lost her battle". */
export const DEATH_IDIOM =
  /^(?:(?:cross|go over|go to|go across) (?:over )?(?:the )?rainbow bridge|pass on\b(?! (?:the|a|an|my|it|this|that|to)\b)|kick the bucket|lose (?:his|her|their) (?:battle|fight)|go to (?:heaven|be with)|be gone (?:now|for good)\b)/i;

/** What makes an ending a pause: "ended early today", "is over for the summer". */
export const FOR_NOW =
  /\b(?:early|late|today|tonight|this (?:morning|afternoon|evening|week)|for the (?:day|week|summer|winter|holidays?|break|season|year)|at \d|until|till|until further notice)\b/i;
/** What is said of a thing that has ended of itself, as verb lemma and what follows: "wrapped up", "has ended", "is over". */
export const CAME_TO_AN_END =
  /^(?:wrap up|wrap(?= up\b)|end|finish|close down|shut down|fold|be over\b(?! (?:there|here|the|a|an|my)\b)|be cancell?ed|come to an end)(?:\s|$)/i;

/** What says a lost thing stays lost: "never found it", "gone for good". */
export const NEVER_FOUND =
  /\b(?:never (?:found|got (?:it|them) back|turned up|saw (?:it|them) again)|for good|gone for good|no sign of (?:it|them))\b/i;

/** What a taste is said to have lost, after "lose": "sushi has lost its appeal". */
export const LOST_ITS_PULL = /^(?:all |some of |most of )?its (?:appeal|charm|shine|magic|allure|spark|novelty|pull)\b/i;

/** A thing or an animal gone to someone else, as verb lemma and what follows: "has a new owner", "went to a new home". */
export const NEW_KEEPER =
  /^(?:have (?:a )?new (?:owner|owners|home|family)|go (?:off )?to (?:a |her |his |their )?(?:new|forever|loving) (?:home|owner|owners|family)|find (?:a |her |his |their )?(?:new|forever) (?:home|family)|be rehomed|get rehomed)\b/i;

/** "It has been six months since my last cigarette": the thing last had, after "since my last". */
export const SINCE_MY_LAST =
  /\b(?:been|it is|going on) (?:over |more than |almost |nearly |about )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|a few|many) (?:days?|weeks?|months?|years?)\b.*\bsince (?:my|our) (?:last|final) ((?:[\p{L}-]+ ){0,2}[\p{L}-]+?)s?$/iu;

/** What makes "hung up my boots" the end of a career: "for good", "for the last time", "after 30 years". */
export const HUNG_UP_FOR_GOOD =
  /\b(?:for good|for the (?:last|final) time|after (?:\d+|\w+) (?:years|decades)|retire|retired|retirement|career|last day)\b/i;

/** What a thing is said to be once it has ended for the user. */
export const RULED_OUT =
  /^(?:now |just |definitely |completely )?(?:off the table|out of the question|a thing of the past|off the cards|off limits|done for me|over for me|finished for me)\b/i;
/** What a taste is said not to be (with "no longer" or "any more"). */
export const NOT_MINE = /^(?:really |really my |quite )?(?:for me|for us|my (?:thing|cup of tea|jam|scene))\b/i;
