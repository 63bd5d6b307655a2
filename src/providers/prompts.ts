import { sha256Hex } from "../util/hash.js";
import type { Extractor } from "./extraction.js";
import { extractionJsonSchema } from "./extraction-output.js";
import type { ExtractionRequest, KnownEntity, KnownFact, SummaryRequest } from "./types.js";

/** How many of the user's current facts the extraction prompt shows (the most recent ones). */
export const MAX_KNOWN_FACTS = 100;

/** How many of the user's entities the extraction prompt shows (the most recently named ones). */
export const MAX_KNOWN_ENTITIES = 100;

/** The fast-replay prompt of seed 000 §8.1, in English. */
export function summaryPrompt(request: SummaryRequest): string {
  const conversation = request.turns.map((turn) => `${turn.role}: ${turn.content}`).join("\n");
  return [
    "You are an expert at summarising conversations. Compress the conversation below into one concise summary that keeps the key information.",
    "",
    "Conversation:",
    conversation,
    "",
    "Requirements:",
    `1. At most ${request.maxWords} words.`,
    "2. Keep the user's key questions and the agent's core answers.",
    "3. Keep every important decision or conclusion.",
    "4. Write in the third person.",
    "",
    "Output only the summary, with no prefix or explanation.",
  ].join("\n");
}

function knownFactLines(facts: KnownFact[]): string[] {
  if (facts.length === 0) return ["(none yet)"];
  return facts.slice(0, MAX_KNOWN_FACTS).map((fact) => `- ${fact.key} = ${JSON.stringify(fact.value)} (${fact.content})`);
}

function knownEntityLines(entities: KnownEntity[]): string[] {
  if (entities.length === 0) return ["(none yet)"];
  return entities
    .slice(0, MAX_KNOWN_ENTITIES)
    .map((entity) => `- ${entity.name} [${entity.kind}]${entity.aliases.length > 0 ? ` also called ${entity.aliases.join(", ")}` : ""}`);
}

/**
 * The deep-reflection prompt of seed 000 §8.1, in English, extended with trait evidence and with
 * the user's current facts, so that a change of an attribute the memory already holds reuses its
 * key (and supersedes it) instead of starting a second, contradicting fact under a new key.
 */
export function extractionPrompt(request: ExtractionRequest): string {
  const conversation = request.turns
    .map((turn) => `[${turn.seq}] ${turn.role}${turn.speaker ? ` (${turn.speaker})` : ""}: ${turn.content}`)
    .join("\n");
  return [
    "You analyse conversations to build a user profile. Extract the user's key information: preferences, rules and facts.",
    "",
    "What the memory already knows about the user (key = value):",
    ...knownFactLines(request.knownFacts ?? []),
    "",
    "People, pets, places, organisations and other things the memory already knows (name [kind]):",
    ...knownEntityLines(request.knownEntities ?? []),
    "",
    "Conversation (each turn starts with its sequence number in brackets):",
    conversation,
    "",
    "Answer with JSON only, in this shape:",
    '{"facts": [{"type": "preference|rule|profile", "key": "stable identifier, e.g. attitude:cats, profile:location, favorite:food",',
    '  "value": "the content", "content": "one third-person sentence, e.g. User loves cats.", "confidence": 0.0-1.0,',
    '  "operation": "ADD (a new fact) | UPDATE (a known key\'s value changed) | DELETE (a known fact ended or the user retracts it) | CORRECT (a known fact was wrong: the user puts it right) | NOOP (the turns restate a known fact unchanged)",',
    '  "replaces_key": "a known key this fact replaces under a different name, else null", "source_seqs": [sequence numbers]}],',
    ' "insights": [{"content": "a deeper insight drawn from the conversation", "importance": "high|medium|low", "source_seqs": [...]}],',
    ' "traits": [{"subtype": "behavior|preference|core", "key": "e.g. likes:cats, behavior:cycles_to_work", "content": "User likes cats.",',
    '  "direction": "supporting|contradicting", "quality": "A (explicit, emphatic) | B (explicit) | C (inferred from behaviour) | D (weak)", "source_seqs": [...]}],',
    ' "entities": [{"name": "the name it goes by now, e.g. Maya, Mr. Ortiz, Porto", "kind": "person|pet|place|organisation|object|event|other",',
    '  "aliases": ["other names used for it"], "summary": "one sentence on who or what it is, or null", "renamed_from": "its previous name if the turns say it was renamed, else null", "source_seqs": [...]}],',
    ' "relations": [{"subject": "an entity name, or user", "predicate": "e.g. daughter, teacher, lives_in, works_at, pet", "object": "an entity name or a value",',
    '  "content": "one third-person sentence, e.g. Maya\'s teacher is Mr. Ortiz.", "confidence": 0.0-1.0, "operation": "ADD or DELETE (DELETE when the turns say it no longer holds)", "source_seqs": [...]}]}',
    "",
    "Rules:",
    "1. Extract only what the user stated about themselves or what can be inferred reliably; never invent. Questions, hypotheticals, quotes and other people's preferences are not the user's facts.",
    "2. preference: likes, dislikes, favourites. rule: standing instructions (e.g. no meetings on Fridays). profile: facts about the user (name, job, employer, home, family, pets, studies).",
    '3. A statement about an attribute the memory already knows uses that known key exactly (e.g. a move uses the known profile:location, not a new profile:city) with operation UPDATE, so that the new value replaces the old one; a correction of a known fact that was never true ("it was Ghent I grew up in, not Bruges") is CORRECT with the right value; a fact the memory already holds with the same value is NOOP; one that ends a known fact without a new value is DELETE.',
    "4. If you must name a new key for a known attribute, set replaces_key to the known key.",
    "5. Every item cites the sequence numbers of the turns it comes from.",
    "6. entities: every person, pet, place and organisation the turns name, and objects or events that matter to the user. A name the memory already knows is written exactly as it is known (use its known name even when the turn uses an alias), so it is the same entity; never list one person twice.",
    "7. relations: who is whose (daughter, partner, friend, teacher, pet), where people and things are (lives_in, located_in, from), where they work or study (works_at, studies_at). The user is the subject named user. A relation that changed (a move, a new job) is stated with its new object; the old one is closed by it.",
    '8. If there is nothing to extract, answer {"facts": [], "insights": [], "traits": [], "entities": [], "relations": []}.',
  ].join("\n");
}

/**
 * The version of the extraction prompt: a hash of its text (with no turns, facts or entities) and
 * of the answer schema, so an LLM's facts record which instructions they were read under and any
 * change to either moves it.
 */
export const EXTRACTION_PROMPT_VERSION = sha256Hex(
  `${extractionPrompt({ turns: [], knownFacts: [], knownEntities: [] })}\n${JSON.stringify(extractionJsonSchema())}`,
).slice(0, 12);

/**
 * An LLM provider's extractor record: its model and the prompt's version.
 *
 * @example
 * llmExtractor("gemini", "gemini-3.8-flash"); // { name: "gemini", model: "gemini-3.8-flash", prompt_version: "…", version: "gemini-3.8-flash prompt …" }
 */
export function llmExtractor(name: string, model: string): Extractor {
  return { name, model, prompt_version: EXTRACTION_PROMPT_VERSION, version: `${model} prompt ${EXTRACTION_PROMPT_VERSION}` };
}
