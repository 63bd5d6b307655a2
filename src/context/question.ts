import nlp from "compromise";
import { type QuestionTime, readQuestionTime } from "../memory/recall/question-time.js";
import { kindsAskedAbout, type StatementKind } from "../memory/recall/statement-kinds.js";
import { inFirstPerson } from "../vocabulary/first-person.js";

/** What a window reads from the question besides its words: its time, its reach, whom it asks about. */
export interface QuestionReading {
  time: QuestionTime;
  /** It gathers over many occasions ("how many …", "all the …", "in total", "which … first, X or Y"). */
  manySessions: boolean;
  /** It asks what the assistant said, suggested or answered: its turns are what it looks for. */
  asksAssistant: boolean;
  /** It asks about the asker, in the first person ("Which gym do I go to?", "my sister's name", "our landlord"), not what the assistant said. */
  aboutAsker: boolean;
  /** The kinds of statement it asks about without naming them: a taste, a habit, a goal (`kindsAskedAbout`). */
  kinds: StatementKind[];
  /**
   * It asks how things stand now: no verb in the past tense ("did", "was", "bought"), no past span
   * named, not the earliest state. What the user said later about a statement matters to such a
   * question; to one about a past occasion it is noise.
   */
  aboutPresent: boolean;
}

/** Quantifiers and comparisons that reach over many occasions (closed classes of English words). */
const GATHERS = /\b(?:how many|how much|in total|total|altogether|all (?:the|of|my)|each|every|list|both|so far|different|combined)\b/i;
const COMPARES =
  /\b(?:first|earlier|before|after|last|later|more|most|fewer|less)\b.*\bor\b|\bor\b.*\b(?:first|earlier|before|after|later)\b/i;
const ASKS_THE_ASSISTANT = /\b(?:you|your|yours|assistant|chatbot)\b/i;

/**
 * Reads a question once for the window: the time it names (`readQuestionTime`), whether it
 * gathers over many sessions, and whether it asks what the assistant said.
 *
 * @example
 * readQuestion("How many concerts did I go to in total?", new Date()).manySessions; // true
 */
export function readQuestion(query: string, now: Date): QuestionReading {
  const time = readQuestionTime(query, now);
  return {
    time,
    manySessions: GATHERS.test(query) || COMPARES.test(query),
    asksAssistant: ASKS_THE_ASSISTANT.test(query),
    aboutAsker: inFirstPerson(query) && !ASKS_THE_ASSISTANT.test(query),
    kinds: kindsAskedAbout(query),
    aboutPresent: !time.range && time.order !== "oldest" && !nlp(query).has("#PastTense"),
  };
}
