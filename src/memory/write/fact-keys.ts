import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../../db/database.js";
import { memories } from "../../db/schema/index.js";
import type { Scope } from "./operations.js";

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

/** `profile:home_city` → `profile:location`; other keys are their own attribute. */
export function canonicalAttribute(key: string): string {
  const [namespace, attribute] = key.split(":", 2);
  if (namespace !== "profile" || attribute === undefined) return key;
  const bare = attribute.replace(/^(?:user|my)_/, "");
  return `profile:${CANONICAL.get(bare) ?? bare}`;
}

export interface ResolvedKey {
  key: string;
  /** Why the key differs from the one extracted; absent when it does not. */
  note?: string;
}

/**
 * The key an extracted fact is written under: the key it names as replaced, when the user's memory
 * holds it; else its own key when that exists; else a current key of the same attribute.
 */
export async function resolveFactKey(tx: Queryable, scope: Scope, key: string, replacesKey: string | undefined): Promise<ResolvedKey> {
  const current = await tx
    .selectDistinct({ key: memories.key })
    .from(memories)
    .where(
      and(eq(memories.appId, scope.appId), eq(memories.userId, scope.userId), eq(memories.type, "semantic"), isNull(memories.expiredAt)),
    );
  const keys = new Set(current.flatMap((row) => (row.key ? [row.key] : [])));
  if (replacesKey && replacesKey !== key && keys.has(replacesKey)) {
    return { key: replacesKey, note: `extracted as ${key}, which names ${replacesKey} as the key it replaces` };
  }
  if (keys.has(key)) return { key };
  const attribute = canonicalAttribute(key);
  const same = [...keys].find((existing) => canonicalAttribute(existing) === attribute);
  return same ? { key: same, note: `extracted as ${key}, the same attribute as ${same}` } : { key };
}
