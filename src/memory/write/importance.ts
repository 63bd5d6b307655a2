/**
 * Rule-based importance: explicit requests to remember, strong preferences,
 * personal dates and commitments raise it; small talk stays low. Each matched category adds to a
 * base, capped at 1.
 */
const CATEGORIES: RegExp[] = [
  /\b(remember|don't forget|do not forget|note that|keep in mind)\b/i,
  /\b(love|like|hate|dislike|prefer|favou?rite|can't stand|enjoy)\b/i,
  /\b(important|crucial|must|never|always|allergic|allergy)\b/i,
  /\b(birthday|anniversary|wedding|graduat\w*|born|died|passed away)\b/i,
  /\b(decid\w*|agree\w*|promise\w*|plan\w*|going to|will)\b/i,
  /\b(my (name|wife|husband|partner|son|daughter|kid|kids|mom|mother|dad|father|job|boss)|i am|i'm|i work|i live|i moved)\b/i,
];

export const BASE_IMPORTANCE = 0.3;

export function ruleImportance(texts: string[]): number {
  const joined = texts.join("\n");
  const matched = CATEGORIES.filter((pattern) => pattern.test(joined)).length;
  return Math.min(1, BASE_IMPORTANCE + 0.12 * matched);
}
