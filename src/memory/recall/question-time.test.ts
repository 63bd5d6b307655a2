import { describe, expect, it } from "vitest";
import { readQuestionTime } from "./question-time.js";

const now = new Date("2024-03-20T15:00:00Z");
const day = (text: string) => new Date(`${text}T00:00:00Z`);

describe("readQuestionTime", () => {
  it("reads a weekday named relative to the question's clock as either of the two days it can mean", () => {
    const { range } = readQuestionTime("Who phoned me last Tuesday about the boiler?", now);
    expect(range?.from?.getTime()).toBeLessThanOrEqual(day("2024-03-12").getTime());
    expect(range?.from?.getTime()).toBeGreaterThanOrEqual(day("2024-03-10").getTime());
    expect(range?.to?.getTime()).toBeGreaterThan(day("2024-03-20").getTime());
    expect(range?.to?.getTime()).toBeLessThanOrEqual(day("2024-03-22").getTime());
  });

  it("reads a month as the whole month", () => {
    expect(readQuestionTime("Which films did we watch last month?", now).range).toEqual({ from: day("2024-02-01"), to: day("2024-03-01") });
  });

  it("widens an estimate by its distance", () => {
    const { range } = readQuestionTime("What was the recipe I tried about six weeks ago?", now);
    expect(range?.from?.getTime()).toBeLessThan(day("2024-02-07").getTime());
    expect(range?.to?.getTime()).toBeGreaterThan(day("2024-02-08").getTime());
  });

  it("names no span for a future date or for none", () => {
    expect(readQuestionTime("What should I pack for next weekend?", now).range).toBeUndefined();
    expect(readQuestionTime("How long since the tulips went into the ground, in days?", now).range).toBeUndefined();
  });

  it("reads 'now' as the present state, not a span of days: 'today' is one", () => {
    for (const question of ["Which choir do I sing with now?", "Right now, who cuts my hair?", "Up to now, which glazes have I tried?"]) {
      expect(readQuestionTime(question, now).range).toBeUndefined();
    }
    expect(readQuestionTime("Which choir do I sing with now?", now).order).toBe("newest");
    expect(readQuestionTime("Which glaze did I fire today?", now).range).toBeDefined();
  });

  it("reads whether the question asks for the present state or the earliest", () => {
    expect(readQuestionTime("Which gym am I going to these days?", now).order).toBe("newest");
    expect(readQuestionTime("Do I still have the canoe?", now).order).toBe("newest");
    expect(readQuestionTime("What was the first car I owned?", now).order).toBe("oldest");
    expect(readQuestionTime("What did I originally plan for the garden?", now).order).toBe("oldest");
    expect(readQuestionTime("What colour is the canoe?", now).order).toBeUndefined();
  });
});
