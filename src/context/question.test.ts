import { describe, expect, it } from "vitest";
import { readQuestion } from "./question.js";

const now = new Date("2024-06-15T12:00:00Z");

describe("a question about how things stand now", () => {
  it("is one with no verb in the past tense, no past span and no earliest state", () => {
    for (const question of ["Which bakery do I buy bread from?", "Where is my brother living?", "How long have I been learning the cello?"])
      expect(readQuestion(question, now).aboutPresent, question).toBe(true);
  });

  it("is not one about a past occasion, a named span or the first state", () => {
    for (const question of [
      "When did I repaint the shed?",
      "Which ferry did we board to reach the island?",
      "Which bakery do I like in March 2023?",
      "Which bakery did I go to originally?",
    ])
      expect(readQuestion(question, now).aboutPresent, question).toBe(false);
  });
});

describe("a question about the asker", () => {
  it("is one in the first person, singular or plural", () => {
    for (const question of [
      "Which dentist do I see now?",
      "Which plumber do we call these days?",
      "Where is our spare key kept?",
      "Is the shed ours or the landlord's?",
    ])
      expect(readQuestion(question, now).aboutAsker, question).toBe(true);
  });

  it("is not one about someone else or about what the assistant said", () => {
    for (const question of [
      "Which plumber does Dana call?",
      "What did you suggest for our hedge?",
      "Which recipe of yours did we try?",
      "Which US port ships the most grain?",
    ])
      expect(readQuestion(question, now).aboutAsker, question).toBe(false);
  });
});
