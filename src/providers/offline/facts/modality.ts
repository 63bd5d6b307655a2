/**
 * What a clause says of the world it asserts: whether it states the user's present (or past) as a
 * fact, or something else — a condition, a wish or an intention, an obligation, a hypothesis,
 * someone else's words or belief, or sarcasm. Read from small closed classes of the language
 * (subordinators, modal auxiliaries, verbs that embed a clause, markers of irony), never from what
 * a sentence is about.
 */
export type Modality = "asserted" | "conditional" | "modal" | "wish" | "obligation" | "reported" | "sarcastic";

/** Subordinators of a condition or a supposition: "if I lived in…", "unless…", "suppose I…". */
const CONDITIONAL = /\b(?:if|unless|whether|suppose|supposing|imagine|imagining|assuming|in case)\b/i;
/** Modal auxiliaries of possibility and advice (not of ability: "I can swim" is a fact). */
const MODAL = /\b(?:would|could|might|may|should|shall|will|must|maybe|perhaps)\b/i;
/** Verbs and phrases that embed a wanted, planned or imagined state: "I want to…", "I'm thinking of…". */
const WISH =
  /\b(?:wish|wishes|wished|hope|hopes|hoping|want|wants|wanted to|dream|dreams|dreaming|plan|plans|planning|intend|intends|considering|consider|thinking (?:about|of)|going to|gonna|about to|trying to|try to|tempted to|someday|one day)\b/i;
/** Obligation: the embedded change has not happened ("I have to give up sugar"). */
const OBLIGATION = /\b(?:have to|has to|need to|needs to|ought to|supposed to|got to|gotta)\b/i;
/** Verbs of saying and believing: with a subject other than the user, the clause is someone else's. */
const REPORTING =
  /\b(?:said|says|saying|told|tells|think|thinks|thought|believe|believes|believed|claims?|claimed|reckons?|assumes?|assumed|guess|guesses|rumou?red|heard)\b/i;
/** Markers of irony: what follows is meant the other way round. */
const SARCASM = /\b(?:yeah right|as if|not!|\/s\b|oh great|just great|lol jk|jk\b|kidding|joking)|\bsure,? because\b/i;

/**
 * The modality of one clause.
 *
 * @example
 * modalityOf("I would love to live in Rome"); // "modal"
 * modalityOf("My brother says he lives in Oslo"); // "reported"
 * modalityOf("I live in Oslo"); // "asserted"
 */
export function modalityOf(clause: string): Modality {
  if (SARCASM.test(clause)) return "sarcastic";
  if (CONDITIONAL.test(clause)) return "conditional";
  if (OBLIGATION.test(clause)) return "obligation";
  if (MODAL.test(clause)) return "modal";
  if (WISH.test(clause)) return "wish";
  const reported = REPORTING.exec(clause);
  // "I think…", "my sister says…": a belief or someone else's words — the user's own "I said no" is an event, not a fact.
  if (reported) return "reported";
  return "asserted";
}
