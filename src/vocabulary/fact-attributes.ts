/**
 * Profile attributes that go by several names. Extractors are asked to reuse the user's keys, but a
 * model may still call the city `profile:city` in one session and `profile:location` in the next;
 * read as one attribute, the newer statement supersedes the older one instead of standing beside
 * it as a second, contradicting fact. The first name of each group is the canonical one.
 */
const SYNONYMS: readonly (readonly string[])[] = [
  ["location", "city", "home_city", "current_city", "residence", "home", "lives_in", "living_in", "place_of_residence", "current_location"],
  ["occupation", "job", "job_title", "profession", "work", "role", "position", "career", "current_job"],
  ["employer", "company", "workplace", "work_place", "works_at", "organisation", "organization", "current_employer"],
  ["name", "first_name", "full_name", "preferred_name", "user_name"],
  ["partner", "spouse", "husband", "wife", "boyfriend", "girlfriend", "significant_other", "partner_name"],
  ["birthday", "birth_date", "date_of_birth", "dob"],
  ["origin", "hometown", "home_town", "birthplace", "place_of_birth", "from"],
  ["studies", "education", "field_of_study", "major", "study", "school", "university"],
  ["diet", "dietary_preference", "diet_type"],
];
const CANONICAL = new Map(SYNONYMS.flatMap((names) => names.map((name) => [name, names[0] as string] as const)));

/**
 * `profile:home_city` → `profile:location`; other keys are their own attribute. Shared by the
 * writer (which resolves an extracted key against the user's current ones), the offline extractor
 * and the fact evaluation, so it sits below all three.
 *
 * @example
 * canonicalAttribute("profile:my_city"); // "profile:location"
 */
export function canonicalAttribute(key: string): string {
  const [namespace, attribute] = key.split(":", 2);
  if (namespace !== "profile" || attribute === undefined) return key;
  const bare = attribute.replace(/^(?:user|my)_/, "");
  return `profile:${CANONICAL.get(bare) ?? bare}`;
}
