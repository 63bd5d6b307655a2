import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/config/env.js";
import { luhnValid } from "../../src/redaction/detectors.js";
import { type RedactionCounts, redactJson, redactText } from "../../src/redaction/redact.js";
import { REDACTION_KINDS } from "../../src/vocabulary/redaction-kind.js";

const ALL = new Set(REDACTION_KINDS);
const redact = (text: string) => {
  const counts: RedactionCounts = {};
  return { text: redactText(text, ALL, counts), counts };
};

describe("write-time redaction detectors", () => {
  it.each([
    ["Mail me at ana.lopez+work@example.co.uk tomorrow", "email"],
    ["my number is +44 20 7946 0958", "phone"],
    ["call (415) 555-0134 after six", "phone"],
    ["reach me on 0612345678", "phone"],
    ["card 4111 1111 1111 1111 exp 12/29", "card"],
    ["pay with 5500-0000-0000-0004", "card"],
    ["the key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "secret"],
    ["AWS AKIAIOSFODNN7EXAMPLE in the config", "secret"],
    ["token ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0dF3gH6", "secret"],
    ["Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "secret"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----", "secret"],
    ["password: x9Qz2LmV7rT4kW8pN3bY6cJ1", "secret"],
  ])("redacts %j as %s", (text, kind) => {
    const result = redact(text);
    expect(result.counts).toEqual({ [kind]: 1 });
    expect(result.text).toContain(`[redacted ${kind}]`);
  });

  it.each([
    "We met on 2024-06-03 at 10:30 and walked 12 km.",
    "It cost $12,500 in 2019, about 1,000,000 yen.",
    "My son Tobiah turns 7 on June 9th; call me at 5.",
    "Order 4111 1111 1111 1112 is not a card (the checksum fails).",
    "Session 3f2c8a9e-1b4d-4c6e-9f0a-2b3c4d5e6f7a and commit 9fceb02d0ae598e95dc970b74767f19372d61af8.",
    "supercalifragilisticexpialidocious-words-only",
    "Flight LH1234 leaves from gate B22.",
  ])("leaves ordinary text alone: %j", (text) => {
    expect(redact(text)).toEqual({ text, counts: {} });
  });

  it("counts several values of several kinds, and redacts inside JSON keys and values", () => {
    const counts: RedactionCounts = {};
    const data = redactJson({ "ana@example.com": { phones: ["+1 202 555 0147", "+33 6 12 34 56 78"] }, n: 3 }, ALL, counts);
    expect(JSON.stringify(data)).not.toMatch(/ana@|555|12 34/);
    expect(counts).toEqual({ email: 1, phone: 2 });
  });

  it("applies only the kinds the policy names", () => {
    const counts: RedactionCounts = {};
    const text = redactText("ana@example.com, +44 20 7946 0958", new Set(["phone"] as const), counts);
    expect(text).toBe("ana@example.com, [redacted phone]");
  });

  it("parses REDACT and rejects unknown kinds", () => {
    expect([...parseEnv({ REDACT: "email, card" }).REDACT]).toEqual(["email", "card"]);
    expect([...parseEnv({ REDACT: "all" }).REDACT].sort()).toEqual([...REDACTION_KINDS].sort());
    expect([...parseEnv({}).REDACT]).toEqual([]);
    expect(() => parseEnv({ REDACT: "email,ssn" })).toThrow(/REDACT/);
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
  });
});
