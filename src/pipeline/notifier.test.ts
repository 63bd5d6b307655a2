import { describe, expect, it } from "vitest";
import { createPipelineNotifier } from "./notifier.js";

const progress = (session_id: string, last_seq: number) => ({ session_id, app_id: "a", user_id: "u", last_seq });

describe("pipeline notifier", () => {
  it("sends the first append at once and folds a burst into one trailing event with the newest last_seq", async () => {
    const sent: { name: string; data: Record<string, unknown> }[][] = [];
    const notifier = createPipelineNotifier(async (events) => void sent.push(events), 50);
    const first = notifier.eventsAppended(progress("s1", 1));
    const burst = [2, 4, 3].map((seq) => notifier.eventsAppended(progress("s1", seq)));
    const other = notifier.eventsAppended(progress("s2", 1));
    await Promise.all([first, ...burst, other]);
    const forS1 = sent.flat().filter((event) => event.data["session_id"] === "s1");
    expect(forS1.map((event) => event.data["last_seq"])).toEqual([1, 4]);
    expect(forS1.every((event) => event.name === "memory/session.events-appended")).toBe(true);
    expect(sent.flat().filter((event) => event.data["session_id"] === "s2")).toHaveLength(1);
  });

  it("rejects every folded caller when the trailing send fails, so the failure is logged, not hidden", async () => {
    let calls = 0;
    const notifier = createPipelineNotifier(async () => {
      if (calls++ > 0) throw new Error("event API down");
    }, 20);
    await notifier.eventsAppended(progress("s1", 1));
    await expect(Promise.all([notifier.eventsAppended(progress("s1", 2)), notifier.eventsAppended(progress("s1", 3))])).rejects.toThrow(
      "event API down",
    );
  });

  it("sends every event when coalescing is off", async () => {
    const sent: unknown[] = [];
    const notifier = createPipelineNotifier(async (events) => void sent.push(...events), 0);
    await Promise.all([1, 2, 3].map((seq) => notifier.eventsAppended(progress("s1", seq))));
    expect(sent).toHaveLength(3);
  });

  it("folds an append still waiting to be announced into the session's end, which answers its caller", async () => {
    const sent: { name: string; data: Record<string, unknown> }[] = [];
    const notifier = createPipelineNotifier(async (events) => void sent.push(...events), 60_000);
    await notifier.eventsAppended(progress("s1", 1));
    const waiting = notifier.eventsAppended(progress("s1", 5));
    await notifier.sessionEnded(progress("s1", 5));
    await waiting;
    expect(sent.map((event) => [event.name, event.data["last_seq"]])).toEqual([
      ["memory/session.events-appended", 1],
      ["memory/session.ended", 5],
    ]);
  });

  it("sends a session's end after the appends already on their way", async () => {
    const sent: string[] = [];
    let release = () => {};
    const slow = new Promise<void>((resolve) => (release = resolve));
    const notifier = createPipelineNotifier(async (events) => {
      if (events[0]?.name === "memory/session.events-appended") await slow;
      sent.push(events[0]?.name as string);
    }, 0);
    const appended = notifier.eventsAppended(progress("s1", 3));
    const ended = notifier.sessionEnded(progress("s1", 3));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual([]);
    release();
    await Promise.all([appended, ended]);
    expect(sent).toEqual(["memory/session.events-appended", "memory/session.ended"]);
  });
});
