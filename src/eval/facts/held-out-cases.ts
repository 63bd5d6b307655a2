import { type FactCase, one } from "./cases.js";

/**
 * A second set, written after the extractor was built on FACT_CASES and scored once before any
 * change to the rules (the first score is in the issue note): new phrasings of the same topics, to
 * show how far the rules generalise.
 */
export const HELD_OUT_FACT_CASES: FactCase[] = [
  one("name", "Hello, my name's Ayesha.", { "profile:name": "Ayesha" }),
  one("name", "I'm Jonas, nice to meet you.", { "profile:name": "Jonas" }),
  one("name", "I'm Maria, and I live in Seville.", { "profile:name": "Maria", "profile:location": "Seville" }),
  one("age", "I'm 52 and recently divorced.", { "profile:age": "52" }),
  one("place", "We live in Rotterdam with our two kids.", { "profile:location": "Rotterdam" }),
  one("place", "I've lived in Melbourne for about six years.", { "profile:location": "Melbourne" }),
  one("place", "Moved to Toronto in the spring.", { "profile:location": "Toronto" }),
  one("place", "I live in the suburbs."),
  one("place", "I live for the weekends."),
  one("place", "My cousin lives in Dublin."),
  one("place", "I could live in Barcelona, honestly."),
  one("place", "I'm from Nigeria originally.", { "profile:origin": "Nigeria" }),
  one("place", "I live in Seoul but I'm from Busan.", { "profile:location": "Seoul", "profile:origin": "Busan" }),
  one("work", "I work as a paralegal at a law firm downtown.", { "profile:occupation": "paralegal" }),
  one("work", "I'm an electrician.", { "profile:occupation": "electrician" }),
  one("work", "I'm working at Shopify now.", { "profile:employer": "Shopify" }),
  one("work", "I've worked at Amazon for three years.", { "profile:employer": "Amazon" }),
  one("work", "I'm a software developer.", { "profile:occupation": "software developer" }),
  one("work", "I just got promoted to senior manager.", { "profile:occupation": "senior manager" }),
  one("work", "My job is boring."),
  one("taste", "I'm a huge fan of the Lakers.", { "attitude:laker": "Lakers" }),
  one("study", "I'm doing a PhD in linguistics.", { "profile:studies": "linguistics" }),
  one("study", "I'm in my second year of nursing school.", { "profile:studies": "nursing" }),
  one("family", "My girlfriend's name is Chloe.", { "profile:partner": "Chloe" }),
  one("family", "My husband Mark is a firefighter.", { "profile:partner": "Mark" }),
  one("family", "My daughter Zoe just started kindergarten.", { "family:daughter:zoe": "Zoe" }),
  one("family", "My mum is called Patricia.", { "family:mother": "Patricia" }),
  one("family", "My wife's birthday is on August 21st.", { "family:partner:birthday": "August 21" }),
  one("family", "My birthday's on the 2nd of February.", { "profile:birthday": "February 2" }),
  one("pet", "Our dog, Pepper, is a beagle.", { "pet:dog:pepper": "Pepper" }),
  one("pet", "We got a kitten named Mochi last week.", { "pet:kitten:mochi": "Mochi" }),
  one("pet", "My sister's dog is called Max."),
  one("hobby", "I play the cello.", { "hobby:cello": "cello" }),
  one("hobby", "I play basketball with friends on Thursdays.", { "hobby:basketball": "basketball" }),
  one("hobby", "I go swimming three times a week.", { "hobby:swimming": "swimming" }),
  one("hobby", "I've been learning Japanese for a year.", { "learning:japanese": "Japanese" }),
  one("taste", "I love baking bread on Sundays.", { "attitude:baking_bread": "baking bread" }),
  one("taste", "I really don't like cold weather.", { "attitude:cold_weather": "cold weather" }),
  one("taste", "I hate waking up early.", { "attitude:waking_up_early": "waking up early" }),
  one("taste", "I never liked country music.", { "attitude:country_music": "country music" }),
  one("taste", "I love how the sunset looks here."),
  one("taste", "My brother hates cilantro."),
  one("taste", "She told me 'I hate my job'."),
  one("taste", "Do you love dogs as much as I do?"),
  one("diet", "I'm allergic to penicillin.", { "allergy:penicillin": "penicillin" }),
  one("diet", "I have a severe nut allergy.", { "allergy:nut": "nut" }),
  one("diet", "I'm pescatarian.", { "profile:diet": "pescatarian" }),
  one("diet", "I stopped drinking alcohol.", { "consumes:drinking_alcohol": "alcohol" }),
  one("diet", "I don't eat meat.", { "consumes:meat": "doesn't eat meat" }),
  one("diet", "I drink way too much coffee.", { "consumes:coffee": "coffee" }),
  one("rule", "Please always reply in Spanish.", { "rule:reply_in_spanish": "reply in Spanish" }),
  one("diet", "Remember that I'm allergic to shellfish.", {
    "allergy:shellfish": "shellfish",
  }),
  {
    topic: "change",
    sessions: [
      { say: "I live in Denver.", expect: { "profile:location": "Denver" } },
      { say: "We just relocated to Phoenix.", expect: { "profile:location": "Phoenix" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I work at Target.", expect: { "profile:employer": "Target" } },
      { say: "I no longer work at Target.", retract: ["profile:employer"] },
    ],
  },
  {
    topic: "change",
    sessions: [{ say: "My boyfriend is Alex.", expect: { "profile:partner": "Alex" } }, { say: "My boyfriend is so sweet." }],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm a barista.", expect: { "profile:occupation": "barista" } },
      { say: "I'm a manager at the cafe now.", expect: { "profile:occupation": "manager", "profile:employer": "cafe" } },
    ],
  },
  {
    topic: "change",
    sessions: [{ say: "I'm vegan.", expect: { "profile:diet": "vegan" } }, { say: "I'm thinking of going vegetarian instead." }],
  },
  {
    topic: "change",
    sessions: [{ say: "I live in Chicago.", expect: { "profile:location": "Chicago" } }, { say: "I spent a week in Miami." }],
  },
];
