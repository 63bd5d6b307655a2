import type { EvidenceQuality, TraitStage } from "../../db/schema/index.js";

/** How much one observation counts, by evidence quality. */
export const QUALITY_WEIGHT: Record<EvidenceQuality, number> = { A: 1, B: 0.7, C: 0.4, D: 0.2 };

/** Days a trend has to collect a second observation before it expires. */
export const TREND_WINDOW_DAYS = 14;

export interface TraitState {
  stage: TraitStage;
  confidence: number;
  reinforcements: number;
  contradictions: number;
  windowStart: Date | null;
  windowEnd: Date | null;
}

export interface Evidence {
  direction: "supporting" | "contradicting";
  quality: EvidenceQuality;
  observedAt: Date;
}

export function newTrait(evidence: Evidence): TraitState {
  return {
    stage: "trend",
    confidence: round(0.2 + 0.2 * QUALITY_WEIGHT[evidence.quality]),
    reinforcements: 1,
    contradictions: 0,
    windowStart: evidence.observedAt,
    windowEnd: addDays(evidence.observedAt, TREND_WINDOW_DAYS),
  };
}

/**
 * The trait after one more observation. Supporting evidence moves confidence towards 1 and
 * contradicting evidence towards 0, each in proportion to its quality; the stage follows from the
 * counts and the confidence:
 *   trend → emerging     at 2 reinforcements inside the trend window
 *   emerging → established at 4 reinforcements and confidence ≥ 0.6
 *   established → core    at 8 reinforcements and confidence ≥ 0.85
 *   any → dissolved       when contradictions match or outnumber reinforcements, or confidence < 0.05
 * A trend whose window closed before its second observation starts a new window instead.
 */
export function applyEvidence(state: TraitState, evidence: Evidence): TraitState {
  if (state.stage === "dissolved") return state;
  const weight = QUALITY_WEIGHT[evidence.quality];
  let next: TraitState = { ...state };
  if (evidence.direction === "supporting") {
    const windowClosed = state.stage === "trend" && state.windowEnd !== null && evidence.observedAt > state.windowEnd;
    if (windowClosed) return { ...newTrait(evidence), contradictions: state.contradictions };
    next.reinforcements += 1;
    next.confidence = round(state.confidence + 0.25 * weight * (1 - state.confidence));
  } else {
    next.contradictions += 1;
    next.confidence = round(state.confidence - 0.3 * weight * state.confidence);
  }
  next = { ...next, stage: stageFor(next) };
  if (next.stage !== "trend") next = { ...next, windowStart: null, windowEnd: null };
  return next;
}

function stageFor(state: TraitState): TraitStage {
  if (state.contradictions >= state.reinforcements || state.confidence < 0.05) return "dissolved";
  if (state.reinforcements >= 8 && state.confidence >= 0.85) return "core";
  if (state.reinforcements >= 4 && state.confidence >= 0.6) return "established";
  if (state.reinforcements >= 2) return "emerging";
  return "trend";
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
