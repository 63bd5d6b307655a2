/** What an entity of the graph is; `other` for anything the rest does not name. */
export const ENTITY_KINDS = ["person", "pet", "place", "organisation", "object", "event", "other"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];
