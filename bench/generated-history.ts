/**
 * A made-up conversation history for the bulk-import benchmark and its tests: one user, sessions a
 * day apart, each alternating user and assistant turns. The words are this project's own (places,
 * jobs, pets and small talk from short lists), never an evaluation data set's. The same seed gives
 * the same history, so two imports of it can be compared memory for memory.
 */
export interface GeneratedTurn {
  role: "user" | "assistant";
  content: string;
}

export interface GeneratedSession {
  /** When the session starts: the first at 2024-03-01 09:00 UTC, then one a day. */
  startedAt: Date;
  turns: GeneratedTurn[];
}

const CITIES = ["Lisbon", "Porto", "Utrecht", "Ghent", "Bergen", "Tartu", "Valencia", "Graz", "Lyon", "Aarhus"];
const JOBS = ["nurse", "carpenter", "librarian", "pilot", "baker", "surveyor", "pharmacist", "translator"];
const PETS = [
  ["dog", "Biscuit"],
  ["cat", "Pepper"],
  ["parrot", "Kiwi"],
  ["rabbit", "Clover"],
] as const;
const HOBBIES = ["the cello", "rock climbing", "pottery", "sailing", "chess", "birdwatching", "baking sourdough", "trail running"];
const FOODS = ["lentil soup", "grilled sardines", "mushroom risotto", "dumplings", "plum cake", "chickpea curry"];
const SIBLINGS = ["Marta", "Tomas", "Ines", "Rui", "Clara", "Jonas"];
const WEATHER = ["rainy", "windy", "sunny", "foggy", "cold", "warm"];
const ASSISTANT_REPLIES = [
  "That sounds like a good week, all things considered.",
  "Thanks for telling me. How do you feel about it now?",
  "Interesting! What made you decide that?",
  "I hope the rest of the week is calmer for you.",
  "Good to know, I will keep that in mind for next time.",
  "That must have taken some patience. Well done.",
  "Would you like some ideas for the weekend?",
];

/** A small deterministic generator (mulberry32), so a seed always gives the same history. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * `sessions` sessions of `turnsPerSession` turns (rounded up to pairs): statements that hold
 * (a job, a pet), statements that change over the sessions (the city, the hobby), and small talk.
 *
 * @example
 * const history = generateHistory({ sessions: 50, turnsPerSession: 10, seed: 7 });
 */
export function generateHistory(options: { sessions: number; turnsPerSession: number; seed?: number }): GeneratedSession[] {
  const next = random(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  let city = pick(CITIES);
  const job = pick(JOBS);
  const [pet, petName] = pick(PETS);
  const sibling = pick(SIBLINGS);
  const start = Date.UTC(2024, 2, 1, 9, 0);
  const sessions: GeneratedSession[] = [];
  for (let index = 0; index < options.sessions; index++) {
    const statements: string[] = [];
    if (index === 0) statements.push(`Hi! I live in ${city} and I work as a ${job}.`, `I have a ${pet} called ${petName}.`);
    if (index > 0 && index % 9 === 0) {
      city = pick(CITIES.filter((candidate) => candidate !== city));
      statements.push(`Big change: I moved to ${city} last week, the flat is small but bright.`);
    }
    if (index % 4 === 1) statements.push(`I started learning ${pick(HOBBIES)} on my days off.`);
    if (index % 6 === 2) statements.push(`My sister ${sibling} visited and we cooked ${pick(FOODS)} together.`);
    if (index % 5 === 3) statements.push(`${petName} chewed through another ${pick(["shoe", "cable", "cushion", "book"])} this morning.`);
    const turns: GeneratedTurn[] = [];
    const pairs = Math.ceil(options.turnsPerSession / 2);
    for (let pair = 0; pair < pairs; pair++) {
      const said =
        statements[pair] ??
        `It was ${pick(WEATHER)} today, so I ${pick(["walked to work", "stayed in and read", "went to the market", "called an old friend", "tidied the balcony"])} and had ${pick(FOODS)} for dinner.`;
      turns.push({ role: "user", content: said }, { role: "assistant", content: pick(ASSISTANT_REPLIES) });
    }
    sessions.push({ startedAt: new Date(start + index * 86_400_000), turns: turns.slice(0, options.turnsPerSession) });
  }
  return sessions;
}
