import type { Turn } from "../types.js";

const STOPWORDS = new Set(
  "a an and are as at be been but by can could did do does for from had has have he her him his i i'm if in into is it its it's just me my of on or our she so than that the their them then there they this to too very was we were what when where which who will with would you your yeah oh ok okay well really also".split(
    " ",
  ),
);

/** Phrases that mark what a summary must keep: decisions, commitments, preferences, facts to remember. */
const SIGNAL =
  /\b(decid\w*|agree\w*|plan\w*|will|going to|remember|important|prefer\w*|like|love|hate|never|always|birthday|deadline|moved?|started|finished|bought|promise\w*|because|need\w*|want\w*)\b|\d/i;

const FILLER_PREFIX = /^(?:(?:well|so|oh|hey|hi|hello|yeah|yes|ok(?:ay)?|wow|um+|uh+|haha|lol)\b[,!.]*\s*)+/i;

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

interface Candidate {
  turn: number;
  order: number;
  speaker: string;
  text: string;
  words: number;
  score: number;
}

/**
 * Offline summariser for fast replay. Extractive and deterministic: it scores the real sentences of
 * the turns by how central their words are to the conversation and whether they carry a decision,
 * preference or fact, keeps the best ones in their original order up to the word limit, and
 * reports them in the third person ("Caroline said …"). It never writes a word that is not in the
 * turns except the speaker attributions.
 *
 * @example
 * summarizeExtractively([{ role: "user", content: "I moved to Berlin last May." }], 200);
 * // 'The user said: "I moved to Berlin last May."'
 */
export function summarizeExtractively(turns: Turn[], maxWords: number): string {
  return extractiveSummary(turns, maxWords).text;
}

/** The summary and the positions (in `turns`) of the turns it quotes. */
export function extractiveSummary(turns: Turn[], maxWords: number): { text: string; quotedTurns: number[] } {
  const candidates = collectCandidates(turns);
  if (candidates.length === 0) return { text: "", quotedTurns: [] };
  const chosen = selectDiverse(candidates, maxWords);
  if (chosen.length === 0) {
    const best = [...candidates].sort((a, b) => b.score - a.score)[0] as Candidate;
    const room = Math.max(1, maxWords - attributionWords(best.speaker));
    chosen.push({ ...best, text: `${best.text.split(/\s+/).slice(0, room).join(" ")}…` });
  }
  chosen.sort((a, b) => a.order - b.order);
  return { text: render(chosen), quotedTurns: [...new Set(chosen.map((candidate) => candidate.turn))] };
}

/** Weight of redundancy against salience (maximal marginal relevance). */
const REDUNDANCY_PENALTY = 1;

/**
 * Greedy maximal-marginal-relevance selection: each pick is the sentence whose salience, reduced
 * by its overlap with what is already chosen, is highest and still fits the word budget. Ten
 * near-identical sentences therefore yield one, leaving room for the one fact said once.
 */
function selectDiverse(candidates: Candidate[], maxWords: number): Candidate[] {
  const maxScore = Math.max(...candidates.map((candidate) => candidate.score)) || 1;
  const termSets = new Map(candidates.map((candidate) => [candidate, new Set(terms(candidate.text))]));
  const chosen: Candidate[] = [];
  const remaining = new Set(candidates);
  let used = 0;
  while (remaining.size > 0) {
    let best: Candidate | undefined;
    let bestValue = -Infinity;
    for (const candidate of remaining) {
      if (used + candidate.words + attributionWords(candidate.speaker) > maxWords) continue;
      const own = termSets.get(candidate) as Set<string>;
      const overlap = Math.max(0, ...chosen.map((picked) => jaccard(own, termSets.get(picked) as Set<string>)));
      const value = candidate.score / maxScore - REDUNDANCY_PENALTY * overlap;
      if (value > bestValue || (value === bestValue && best && candidate.order < best.order)) {
        best = candidate;
        bestValue = value;
      }
    }
    if (!best) break;
    chosen.push(best);
    remaining.delete(best);
    used += best.words + attributionWords(best.speaker);
  }
  return chosen;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

function collectCandidates(turns: Turn[]): Candidate[] {
  const sentences: Omit<Candidate, "score">[] = [];
  turns.forEach((turn, turnIndex) => {
    for (const { segment } of segmenter.segment(turn.content)) {
      const text = segment.trim().replace(FILLER_PREFIX, "").replace(/\s+/g, " ");
      const words = text.split(" ").filter(Boolean).length;
      if (words < 3) continue;
      sentences.push({ turn: turnIndex, order: sentences.length, speaker: turn.role, text, words });
    }
  });
  const frequency = new Map<string, number>();
  for (const sentence of sentences) for (const term of new Set(terms(sentence.text))) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return sentences.map((sentence) => {
    const sentenceTerms = terms(sentence.text);
    const centrality = sentenceTerms.reduce((sum, term) => sum + Math.log1p(frequency.get(term) ?? 0), 0) / Math.sqrt(sentence.words + 1);
    const signal = SIGNAL.test(sentence.text) ? 1.5 : 1;
    const question = sentence.text.endsWith("?") ? 0.8 : 1;
    return { ...sentence, score: centrality * signal * question + 0.01 * sentenceTerms.length };
  });
}

function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((word) => word.length > 2 && !STOPWORDS.has(word));
}

function speakerLabel(speaker: string): string {
  if (speaker === "user") return "The user";
  if (speaker === "assistant") return "The assistant";
  if (speaker === "system" || speaker === "tool") return `The ${speaker}`;
  return speaker;
}

function attributionWords(speaker: string): number {
  return speakerLabel(speaker).split(" ").length + 1;
}

/** Consecutive sentences of one speaker are quoted together under one attribution. */
function render(chosen: Candidate[]): string {
  const parts: string[] = [];
  let current: { speaker: string; turn: number; texts: string[] } | undefined;
  for (const candidate of chosen) {
    if (current && current.speaker === candidate.speaker && current.turn === candidate.turn) {
      current.texts.push(candidate.text);
      continue;
    }
    if (current) parts.push(`${speakerLabel(current.speaker)} said: "${current.texts.join(" ")}"`);
    current = { speaker: candidate.speaker, turn: candidate.turn, texts: [candidate.text] };
  }
  if (current) parts.push(`${speakerLabel(current.speaker)} said: "${current.texts.join(" ")}"`);
  return parts.join(" ");
}
