import { describe, expect, it } from "vitest";
import { offlineLanguageModel } from "./offline-language-model.js";
import { createThreadedLanguageModel } from "./threaded-language-model.js";

const turns = [
  { role: "user", content: "I moved to Porto last month and I work at a bakery now.", seq: 1 },
  { role: "assistant", content: "That sounds lovely! How is the bakery?", seq: 2 },
  { role: "user", content: "Please remember that my daughter Maya is allergic to peanuts.", seq: 3 },
];

describe("the offline language model in a worker thread", () => {
  const threaded = createThreadedLanguageModel();

  it("answers as the model does on the calling thread", async () => {
    expect(threaded.id).toBe(offlineLanguageModel.id);
    expect(await threaded.summarize({ turns, maxWords: 200 })).toEqual(await offlineLanguageModel.summarize({ turns, maxWords: 200 }));
    const extraction = await threaded.extract({ turns });
    expect(extraction).toEqual(await offlineLanguageModel.extract({ turns }));
    expect(extraction.facts.length).toBeGreaterThan(0);
  });

  it("leaves the calling thread's event loop free while it reads long events", async () => {
    // Three events of ~94 KB: on the calling thread, summarising one holds the loop for a third of a second.
    const text = Array.from({ length: 1200 }, (_, j) => `I really like the ${j} blue bicycle my friend Tom sold me in Lisbon.`).join(" ");
    const long = Array.from({ length: 3 }, (_, i) => ({ role: "user", content: text, seq: i + 1 }));
    await threaded.summarize({ turns: turns.slice(0, 1), maxWords: 50 });
    let longestGap = 0;
    let last = performance.now();
    const tick = () => {
      longestGap = Math.max(longestGap, performance.now() - last);
      last = performance.now();
    };
    const ticker = setInterval(tick, 5);
    const started = performance.now();
    await Promise.all([threaded.summarize({ turns: long, maxWords: 200 }), threaded.extract({ turns: long.slice(0, 1) })]);
    const elapsed = performance.now() - started;
    tick();
    clearInterval(ticker);
    // The work took a while, and the loop never went without a turn for more than a small part of
    // it (on the calling thread the longest gap is nearly all of it).
    expect(elapsed).toBeGreaterThan(300);
    expect(longestGap).toBeLessThan(elapsed / 4);
  });

  it("rejects what is in flight when its worker exits, and starts a new one for the next call", async () => {
    const exiting = createThreadedLanguageModel(new URL("../../../test/fixtures/exiting-model-worker.mjs", import.meta.url));
    await expect(exiting.summarize({ turns, maxWords: 10 })).rejects.toThrow(/exited with code 7/);
    await expect(exiting.summarize({ turns, maxWords: 10 })).rejects.toThrow(/exited with code 7/);
  });
});
