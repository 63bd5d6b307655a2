import { describe, expect, it } from "vitest";
import { isLowInformation } from "./low-information.js";

describe("low-information turns", () => {
  it("recognises acknowledgements, thanks, greetings and bare emoji", () => {
    for (const text of [
      "Noted!",
      "Thanks so much!",
      "ok",
      "Got it, thank you.",
      "Sounds good!",
      "👍",
      "Haha, that’s great!",
      "Hi!",
      "You're welcome.",
    ])
      expect(isLowInformation(text), text).toBe(true);
  });

  it("keeps answers, agreements and anything with content", () => {
    for (const text of [
      "No.",
      "Yes",
      "Me too!",
      "Noted: Maya starts school on September 4th.",
      "Thanks, I moved to Lisbon.",
      "Great, see you in Porto on Friday!",
      "I adore it",
    ])
      expect(isLowInformation(text), text).toBe(false);
  });
});
