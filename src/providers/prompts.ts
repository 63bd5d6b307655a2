import type { ExtractionRequest, KnownFact, SummaryRequest } from "./types.js";

/** How many of the user's current facts the extraction prompt shows (the most recent ones). */
export const MAX_KNOWN_FACTS = 100;

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

/**
 * The deep-reflection prompt of seed 000 §8.1, in English, extended with trait evidence and with
 * the user's current facts, so that a change of an attribute the memory already holds reuses its
 * key (and supersedes it) instead of starting a second, contradicting fact under a new key.
 */
export function extractionPrompt(request: ExtractionRequest): string {
  const conversation = request.turns.map((turn) => `[${turn.seq}] ${turn.role}: ${turn.content}`).join("\n");
  return [
    "You analyse conversations to build a user profile. Extract the user's key information: preferences, rules and facts.",
    "",
    "What the memory already knows about the user (key = value):",
    ...knownFactLines(request.knownFacts ?? []),
    "",
    "Conversation (each turn starts with its sequence number in brackets):",
    conversation,
    "",
    "Answer with JSON only, in this shape:",
    '{"facts": [{"type": "preference|rule|profile", "key": "stable identifier, e.g. attitude:cats, profile:location, favorite:food",',
    '  "value": "the content", "content": "one third-person sentence, e.g. User loves cats.", "confidence": 0.0-1.0,',
    '  "operation": "ADD or DELETE (DELETE when the user retracts what the key said)",',
    '  "replaces_key": "a known key this fact replaces under a different name, else null", "source_seqs": [sequence numbers]}],',
    ' "insights": [{"content": "a deeper insight drawn from the conversation", "importance": "high|medium|low", "source_seqs": [...]}],',
    ' "traits": [{"subtype": "behavior|preference|core", "key": "e.g. likes:cats, behavior:cycles_to_work", "content": "User likes cats.",',
    '  "direction": "supporting|contradicting", "quality": "A (explicit, emphatic) | B (explicit) | C (inferred from behaviour) | D (weak)", "source_seqs": [...]}]}',
    "",
    "Rules:",
    "1. Extract only what the user stated about themselves or what can be inferred reliably; never invent. Questions, hypotheticals, quotes and other people's preferences are not the user's facts.",
    "2. preference: likes, dislikes, favourites. rule: standing instructions (e.g. no meetings on Fridays). profile: facts about the user (name, job, employer, home, family, pets, studies).",
    "3. A statement about an attribute the memory already knows uses that known key exactly (e.g. a move uses the known profile:location, not a new profile:city), so that the new value replaces the old one.",
    "4. If you must name a new key for a known attribute, set replaces_key to the known key.",
    "5. Every item cites the sequence numbers of the turns it comes from.",
    '6. If there is nothing to extract, answer {"facts": [], "insights": [], "traits": []}.',
  ].join("\n");
}
