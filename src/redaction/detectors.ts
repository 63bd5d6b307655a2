import type { RedactionKind } from "../vocabulary/redaction-kind.js";

/** One detector: where its candidates are, and which candidates are real (a checksum, a shape). */
interface Detector {
  pattern: RegExp;
  accept?: (match: string) => boolean;
}

const EMAIL: Detector = { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g };

/** 13-19 digits, optionally grouped by spaces or dashes, that pass the Luhn checksum (every issuer's cards do). */
const CARD: Detector = {
  pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
  accept: (match) => luhnValid(match.replace(/\D/g, "")),
};

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * International or national numbers with the usual separators: 7-15 digits (E.164's limit). A
 * plain run of digits counts only from 10 digits (shorter ones are amounts, ids, years); dates do not.
 */
const PHONE: Detector = {
  pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,5}(?:[ .-]?\d{2,5}){0,4}(?![\w])/g,
  accept: (match) => {
    const digits = match.replace(/\D/g, "").length;
    if (digits < 7 || digits > 15 || ISO_DATE.test(match)) return false;
    return match.startsWith("+") || match.startsWith("(") || /[ .-]/.test(match) || digits >= 10;
  },
};

/** Credentials recognisable by their issuer's prefix: cloud, payment, source-control and chat tokens, private keys, JWTs. */
const KNOWN_SECRETS: Detector = {
  pattern: new RegExp(
    [
      String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`,
      String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}`,
      String.raw`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`,
      String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
      String.raw`\bgithub_pat_[A-Za-z0-9_]{40,}`,
      String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
      String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
      String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
      String.raw`\bAIza[0-9A-Za-z_-]{35}`,
      String.raw`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
    ].join("|"),
    "g",
  ),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_DIGEST = /^[0-9a-f]{7,64}$/i;
/**
 * Anything else that looks like a generated credential: a long token of letters and digits whose
 * characters are close to random (Shannon entropy per character). Identifiers that are long and
 * random by design but not secret — UUIDs, hex digests such as commit hashes — are left alone.
 */
const HIGH_ENTROPY: Detector = {
  pattern: /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{24,}(?![A-Za-z0-9+/_=-])/g,
  accept: (match) => {
    if (UUID.test(match) || HEX_DIGEST.test(match)) return false;
    if (!/\d/.test(match) || !/[A-Za-z]/.test(match)) return false;
    return shannonEntropy(match) >= (match.length >= 32 ? 3.8 : 4.0);
  },
};

/** In the order they run: the most specific first, so a card is never counted as a phone number. */
export const DETECTORS: readonly [RedactionKind, Detector][] = [
  ["secret", KNOWN_SECRETS],
  ["email", EMAIL],
  ["card", CARD],
  ["secret", HIGH_ENTROPY],
  ["phone", PHONE],
];

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}
