/**
 * The offline fact extractor's evaluation set (`npm run eval:facts`): everyday first-person
 * messages, written for this project, and multi-session changes. Each session says what the
 * user's memory should gain from it — a key and words its content must hold — and which keys it
 * retracts; anything else the extractor writes is a false positive. A session without `expect`
 * should write nothing: questions, hypotheticals, quoted and reported speech, other people's facts,
 * figures of speech.
 */
export interface FactSession {
  say: string;
  /** Key → words (case-insensitive) the fact's content must contain. */
  expect?: Record<string, string>;
  /** Keys this message retracts ("I no longer live in Berlin"). */
  retract?: string[];
}

export interface FactCase {
  topic: string;
  sessions: FactSession[];
}

/** A case of one message. */
export const one = (topic: string, say: string, expect?: Record<string, string>): FactCase => ({
  topic,
  sessions: [{ say, ...(expect ? { expect } : {}) }],
});

export const FACT_CASES: FactCase[] = [
  // Names
  one("name", "Hi, I'm Priya.", { "profile:name": "Priya" }),
  one("name", "My name is Tomás Alvarez.", { "profile:name": "Tomás Alvarez" }),
  one("name", "Hey there, I'm Marcus and I teach chemistry.", { "profile:name": "Marcus", "profile:occupation": "chemistry" }),
  one("name", "Everyone calls me Jo.", { "profile:name": "Jo" }),
  one("name", "I'm tired today."),
  one("name", "I'm Canadian, by the way."),
  one("name", "My friend's name is Olga."),
  one("name", "I'm so happy you asked!"),
  one("name", "I'm Dutch but I live in Oslo.", { "profile:location": "Oslo" }),
  one("name", "Hello! This is Dana speaking."),
  // Age
  one("age", "I'm 34.", { "profile:age": "34" }),
  one("age", "I turned 40 last month.", { "profile:age": "40" }),
  one("age", "I'm 29 years old and still figuring things out.", { "profile:age": "29" }),
  one("age", "My daughter is 6."),
  one("age", "I'm 5 minutes away."),
  // Where the user lives and comes from
  one("place", "I live in Lisbon.", { "profile:location": "Lisbon" }),
  one("place", "I moved to Lisbon last month.", { "profile:location": "Lisbon" }),
  one("place", "We relocated to Denver for my wife's job.", { "profile:location": "Denver" }),
  one("place", "I'm based in Nairobi these days.", { "profile:location": "Nairobi" }),
  one("place", "I live in a tiny flat in Glasgow.", { "profile:location": "Glasgow" }),
  one("place", "I live in fear of spiders."),
  one("place", "I live with my parents."),
  one("place", "I live near the beach, which is lovely."),
  one("place", "I'm thinking about moving to Berlin."),
  one("place", "If I lived in Tokyo I'd eat sushi every day."),
  one("place", "Should I move to Austin?"),
  one("place", "My sister lives in Madrid."),
  one("place", "My boss said he lives in Paris."),
  one("place", "I'm moving to Seattle next month."),
  one("place", "I grew up in Porto.", { "profile:origin": "Porto" }),
  one("place", "I'm originally from Kerala.", { "profile:origin": "Kerala" }),
  one("place", "I was born in Lyon.", { "profile:origin": "Lyon" }),
  one("place", "I live in the moment."),
  one("place", "Do you know anyone who lives in Rome?"),
  one("place", "We just moved to Utrecht and I love it here.", { "profile:location": "Utrecht" }),
  // Work
  one("work", "I'm a software engineer at Google.", { "profile:occupation": "software engineer", "profile:employer": "Google" }),
  one("work", "I work as a nurse.", { "profile:occupation": "nurse" }),
  one("work", "I've been a nurse for ten years.", { "profile:occupation": "nurse" }),
  one("work", "I work at the hospital on Main Street.", { "profile:employer": "hospital" }),
  one("work", "I work for Spotify as a data analyst.", { "profile:employer": "Spotify", "profile:occupation": "data analyst" }),
  one("work", "Big news: I just started a new job as a software engineer at Acme.", {
    "profile:occupation": "software engineer",
    "profile:employer": "Acme",
  }),
  one("work", "I'm a teacher.", { "profile:occupation": "teacher" }),
  one("work", "I'm a freelance graphic designer.", { "profile:occupation": "graphic designer" }),
  one("work", "I'm a morning person."),
  one("work", "I'm a big fan of jazz.", { "attitude:jazz": "jazz" }),
  one("work", "I'm a bit of a perfectionist."),
  one("work", "I used to be a chef."),
  one("work", "My husband is a doctor."),
  one("work", "I want to become a pilot."),
  one("work", "I'd love to work at NASA someday."),
  one("work", "I'm a nurse but I hate night shifts.", { "profile:occupation": "nurse", "attitude:night_shift": "night shifts" }),
  one("work", "I work from home most days."),
  one("work", "I work out every morning."),
  one("work", "I got a job at Deloitte!", { "profile:employer": "Deloitte" }),
  one("work", "I'm an accountant at a small firm.", { "profile:occupation": "accountant" }),
  one("work", "I'm a mess this week."),
  one("work", "I'm retired now.", { "profile:occupation": "retired" }),
  one("work", "I teach math at a high school.", { "profile:occupation": "math" }),
  one("work", "I'm working on a new project."),
  // Studies
  one("study", "I'm studying biology at Lund University.", { "profile:studies": "biology" }),
  one("study", "I study law.", { "profile:studies": "law" }),
  one("study", "I'm doing a master's in physics.", { "profile:studies": "physics" }),
  one("study", "I'm a student at MIT.", { "profile:studies": "MIT" }),
  one("study", "I'm majoring in economics.", { "profile:studies": "economics" }),
  one("study", "I graduated from Stanford in 2015.", { "profile:alma_mater": "Stanford" }),
  one("study", "I'm studying for my driving test."),
  one("study", "I studied French in school."),
  one("study", "My daughter is studying medicine."),
  // Partner and family
  one("family", "My partner is Sam.", { "profile:partner": "Sam" }),
  one("family", "My partner is very supportive of my career change."),
  one("family", "My partner is Italian."),
  one("family", "My wife Anna is a nurse.", { "profile:partner": "Anna" }),
  one("family", "I'm married to Tom.", { "profile:partner": "Tom" }),
  one("family", "My husband's name is Raj.", { "profile:partner": "Raj" }),
  one("family", "My boyfriend Jake loves hiking.", { "profile:partner": "Jake" }),
  one("family", "My son Leo turns 7 on June 3rd.", { "family:son:leo": "Leo", "family:son:leo:birthday": "June 3" }),
  one("family", "My daughter is called Mia.", { "family:daughter:mia": "Mia" }),
  one("family", "I have a daughter named Ines.", { "family:daughter:ines": "Ines" }),
  one("family", "My brother Karl lives in Vienna.", { "family:brother:karl": "Karl" }),
  one("family", "My mom is visiting next week."),
  one("family", "I have two kids."),
  one("family", "My sister just had a baby girl named Rosa."),
  one("family", "My dad's birthday is on March 3rd.", { "family:father:birthday": "March 3" }),
  one("family", "My birthday is May 12.", { "profile:birthday": "May 12" }),
  one("family", "My birthday is on the 5th of October.", { "profile:birthday": "October 5" }),
  one("family", "My sister Maria is getting married in July.", { "family:sister:maria": "Maria" }),
  one("family", "My best friend is moving away."),
  // Pets
  one("pet", "We adopted a dog named Biscuit.", { "pet:dog:biscuit": "Biscuit" }),
  one("pet", "I have a cat called Miso.", { "pet:cat:miso": "Miso" }),
  one("pet", "My dog Rex is 12 now.", { "pet:dog:rex": "Rex" }),
  one("pet", "Our cat, Luna, hates the vacuum.", { "pet:cat:luna": "Luna" }),
  one("pet", "My neighbour's dog barks all night."),
  one("pet", "I'd love to get a puppy."),
  // Hobbies and learning
  one("hobby", "I play the piano in a jazz band.", { "hobby:piano": "piano" }),
  one("hobby", "I play tennis on weekends.", { "hobby:tennis": "tennis" }),
  one("hobby", "I go climbing every Saturday.", { "hobby:climbing": "climbing" }),
  one("hobby", "I'm learning Spanish.", { "learning:spanish": "Spanish" }),
  one("hobby", "I started learning the guitar last year.", { "learning:guitar": "guitar" }),
  one("hobby", "I'm really into photography.", { "hobby:photography": "photography" }),
  one("hobby", "My hobby is woodworking.", { "hobby:woodworking": "woodworking" }),
  one("hobby", "I play video games to relax.", { "hobby:video_game": "video games" }),
  one("hobby", "I play it by ear."),
  one("hobby", "I played football in high school."),
  one("hobby", "My son plays the violin."),
  one("hobby", "I go running before work.", { "hobby:running": "running" }),
  // Likes and dislikes
  one("taste", "I love hiking.", { "attitude:hiking": "loves hiking" }),
  one("taste", "I can't stand cilantro.", { "attitude:cilantro": "cilantro" }),
  one("taste", "I don't like horror movies.", { "attitude:horror_movie": "doesn't like horror movies" }),
  one("taste", "I really enjoy cooking Thai food.", { "attitude:cooking_thai_food": "cooking Thai food" }),
  one("taste", "I hate it when people are late."),
  one("taste", "I love that you remembered!"),
  one("taste", "I love it."),
  one("taste", "My sister loves horses."),
  one("taste", "My boss said 'I love Mondays'."),
  one("taste", 'My boss keeps saying "I love deadlines" in every meeting.'),
  one("taste", "Do you like sushi?"),
  one("taste", "I'm not a fan of jazz.", { "attitude:jazz": "jazz" }),
  one("taste", "I prefer tea.", { "attitude:tea": "tea" }),
  one("taste", "My favorite band is Radiohead.", { "favorite:band": "Radiohead" }),
  one("taste", "My favourite food is pad thai.", { "favorite:food": "pad thai" }),
  one("taste", "I would love a coffee right now."),
  one("taste", "I absolutely adore dogs.", { "attitude:dog": "dogs" }),
  one("taste", "I dislike crowded places.", { "attitude:crowded_place": "crowded places" }),
  one("taste", "If I liked coffee I'd drink more of it."),
  one("taste", "Would you like to hear a joke?"),
  one("taste", "I think I'd like the salmon."),
  one("taste", "I love you guys."),
  one("taste", "I like how you explained that."),
  // Eating, drinking and habits
  one("diet", "I drink coffee every morning.", { "consumes:coffee": "drinks coffee" }),
  one("diet", "I don't drink coffee anymore.", { "consumes:coffee": "no longer drinks coffee" }),
  one("diet", "I don't eat pork.", { "consumes:pork": "doesn't eat pork" }),
  one("diet", "I gave up sugar in January.", { "consumes:sugar": "gave up sugar" }),
  one("diet", "I quit smoking last year.", { "consumes:smoking": "quit smoking" }),
  one("diet", "I'm vegetarian.", { "profile:diet": "vegetarian" }),
  one("diet", "I'm vegan now.", { "profile:diet": "vegan" }),
  one("diet", "I became a vegetarian last year.", { "profile:diet": "vegetarian" }),
  one("diet", "I'm allergic to peanuts.", { "allergy:peanut": "peanuts" }),
  one("diet", "I'm allergic to cats and dust.", { "allergy:cat": "cats", "allergy:dust": "dust" }),
  one("diet", "I'm lactose intolerant.", { "allergy:lactose": "lactose" }),
  one("diet", "My son is allergic to eggs."),
  one("diet", "Is it weird that I don't drink water?"),
  // Instructions and explicit notes
  one("rule", "Always answer in German.", { "rule:answer_in_german": "answer in German" }),
  one("rule", "Never use emojis with me.", { "rule:use_emojis_with_me": "emojis" }),
  one("rule", "Please remember that my gym closes at 9.", { "note:my_gym_close_at_9": "gym closes at 9" }),
  // Changes across sessions
  {
    topic: "change",
    sessions: [
      { say: "I live in Berlin.", expect: { "profile:location": "Berlin" } },
      { say: "We moved to Lisbon last month.", expect: { "profile:location": "Lisbon" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm a nurse and I work at the hospital.", expect: { "profile:occupation": "nurse", "profile:employer": "hospital" } },
      {
        say: "Big news: I just started a new job as a software engineer at Acme. I quit the hospital last week.",
        expect: { "profile:occupation": "software engineer", "profile:employer": "Acme" },
      },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm a nurse at St. Mary's.", expect: { "profile:occupation": "nurse", "profile:employer": "St. Mary's" } },
      { say: "I quit my job at St. Mary's.", retract: ["profile:employer", "profile:occupation"] },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I work at the bank.", expect: { "profile:employer": "bank" } },
      { say: "I quit Google last year, best decision ever." },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm vegetarian.", expect: { "profile:diet": "vegetarian" } },
      { say: "I'm not vegetarian anymore.", retract: ["profile:diet"] },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I drink coffee every morning.", expect: { "consumes:coffee": "drinks coffee" } },
      { say: "I don't drink coffee anymore.", expect: { "consumes:coffee": "no longer drinks coffee" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "My partner is Sam.", expect: { "profile:partner": "Sam" } },
      { say: "My partner is very supportive of my career change." },
    ],
  },
  {
    topic: "change",
    sessions: [{ say: "I live in Lisbon.", expect: { "profile:location": "Lisbon" } }, { say: "I live in fear of spiders, honestly." }],
  },
  {
    topic: "change",
    sessions: [{ say: "I live in Oslo.", expect: { "profile:location": "Oslo" } }, { say: "My sister lives in Madrid now." }],
  },
  {
    topic: "change",
    sessions: [
      { say: "I love sushi.", expect: { "attitude:sushi": "loves sushi" } },
      { say: "I hate sushi now.", expect: { "attitude:sushi": "hates sushi" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I work at Google.", expect: { "profile:employer": "Google" } },
      {
        say: "I left Google in March and joined Stripe as a product manager.",
        expect: { "profile:employer": "Stripe", "profile:occupation": "product manager" },
      },
    ],
  },
  {
    topic: "change",
    sessions: [{ say: "I live in Boston.", expect: { "profile:location": "Boston" } }, { say: "I'm thinking of moving to Denver." }],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm a teacher.", expect: { "profile:occupation": "teacher" } },
      { say: "I'm a principal now.", expect: { "profile:occupation": "principal" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I live in Austin.", expect: { "profile:location": "Austin" } },
      { say: "I no longer live in Austin.", retract: ["profile:location"] },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "My favorite color is blue.", expect: { "favorite:color": "blue" } },
      { say: "My favourite colour is green now.", expect: { "favorite:color": "green" } },
    ],
  },
  {
    topic: "change",
    sessions: [{ say: "I live in Lisbon.", expect: { "profile:location": "Lisbon" } }, { say: "My brother lives in Porto." }],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm allergic to peanuts.", expect: { "allergy:peanut": "peanuts" } },
      { say: "I'm allergic to shellfish too.", expect: { "allergy:shellfish": "shellfish" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "My partner is Sam.", expect: { "profile:partner": "Sam" } },
      { say: "Sam and I broke up. My girlfriend Lena is amazing.", expect: { "profile:partner": "Lena" } },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I'm studying law at Leiden.", expect: { "profile:studies": "law" } },
      { say: "My roommate is studying art history." },
    ],
  },
  {
    topic: "change",
    sessions: [
      { say: "I live in Madrid.", expect: { "profile:location": "Madrid" } },
      { say: "I don't live in Madrid anymore.", retract: ["profile:location"] },
    ],
  },
  {
    topic: "change",
    sessions: [{ say: "I live in Madrid.", expect: { "profile:location": "Madrid" } }, { say: "I don't live in Paris." }],
  },
  {
    topic: "change",
    sessions: [{ say: "Hi, I'm Priya.", expect: { "profile:name": "Priya" } }, { say: "I'm Happy with the plan." }],
  },
];
