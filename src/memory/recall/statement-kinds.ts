/**
 * Kinds of things a user says of themselves that a question may ask about without naming them:
 * a taste ("my favourite band is …", "I'm really into …"), a habit ("every morning I …"), a goal
 * ("I'm aiming to …"). Each is a small closed class of English words, read the same way in the
 * user's turns (a Postgres regular expression over the turn) and in the question.
 */
export const STATEMENT_KINDS = ["taste", "habit", "goal"] as const;
export type StatementKind = (typeof STATEMENT_KINDS)[number];

interface KindWords {
  /** In a user's turn (Postgres ARE, case-insensitive, word boundaries `\m` `\M`): the turn states something of this kind. */
  statement: string;
  /** In a question: it asks about something of this kind. */
  question: RegExp;
}

const KINDS: Record<StatementKind, KindWords> = {
  taste: {
    statement:
      "\\m(i|we) (really |absolutely |just )?(love|like|enjoy|adore|prefer|hate|dislike)\\M|\\mfavou?rite\\M|\\m(i'm|i am|we're) (really |totally |a big |a huge )?(into|fan of|obsessed with|passionate about|fond of)\\M|\\mcan't stand\\M",
    question:
      /\b(?:favou?rite|into|fan of|like|love|enjoy|prefer|taste|tastes|recommend|recommendations?|suggest|suggestions?|ideas?|tips|advice)\b/i,
  },
  habit: {
    statement:
      "\\m(usually|normally|always|often|routine|habit)\\M|\\mevery (day|morning|evening|night|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\\M|\\m(once|twice|three times) a (day|week|month)\\M|\\mon (weekends|weekdays)\\M",
    question: /\b(?:how often|usually|routine|habit|every|regularly|normally|tips|advice|suggest|recommend)\b/i,
  },
  goal: {
    statement: "\\m(goal|aim|aiming|determined|target|resolution)\\M|\\m(planning|hoping|trying|want|wanting|working towards) to\\M",
    question: /\b(?:goal|goals|aim|aiming|target|plan|plans|planning|trying to|hoping to|want to)\b/i,
  },
};

/** The kinds a question asks about: a taste for "which bands am I a fan of?", a habit for "how often do I …?". */
export function kindsAskedAbout(question: string): StatementKind[] {
  return STATEMENT_KINDS.filter((kind) => KINDS[kind].question.test(question));
}

/** The Postgres regular expression that finds a user's statements of `kind`. */
export const statementPattern = (kind: StatementKind): string => KINDS[kind].statement;
