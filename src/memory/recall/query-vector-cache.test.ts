import { describe, expect, it } from "vitest";
import { QueryVectorCache } from "./query-vector-cache.js";

const ana = { appId: "default", userId: "ana" };
const ben = { appId: "default", userId: "ben" };

/** An embedder that counts its calls and answers when told to. */
function embedder() {
  const calls: string[] = [];
  const pending: { resolve: (vector: number[]) => void; reject: (error: Error) => void }[] = [];
  return {
    calls,
    pending,
    embed: (text: string) => () => {
      calls.push(text);
      return new Promise<number[]>((resolve, reject) => pending.push({ resolve, reject }));
    },
  };
}

describe("QueryVectorCache", () => {
  it("embeds a query once however many ask at the same time, and serves it again until it expires", async () => {
    let now = 0;
    const cache = new QueryVectorCache({ capacity: 10, ttlMs: 1000 }, () => now);
    const model = embedder();
    const first = cache.vectorFor(ana, "m", "pets", model.embed("pets"));
    const second = cache.vectorFor(ana, "m", "pets", model.embed("pets"));
    model.pending[0]?.resolve([1, 0]);
    expect(await first).toEqual([1, 0]);
    expect(await second).toEqual([1, 0]);
    now = 999;
    expect(await cache.vectorFor(ana, "m", "pets", model.embed("pets"))).toEqual([1, 0]);
    expect(model.calls).toEqual(["pets"]);
    now = 1000;
    const expired = cache.vectorFor(ana, "m", "pets", model.embed("pets"));
    model.pending[1]?.resolve([0, 1]);
    expect(await expired).toEqual([0, 1]);
    expect(model.calls).toEqual(["pets", "pets"]);
  });

  it("keys by user and model, and an erasure drops only that user's queries", async () => {
    const cache = new QueryVectorCache({ capacity: 10, ttlMs: 60_000 });
    let calls = 0;
    const embed = () => Promise.resolve([++calls]);
    await cache.vectorFor(ana, "m", "pets", embed);
    await cache.vectorFor(ben, "m", "pets", embed);
    await cache.vectorFor(ana, "other-model", "pets", embed);
    expect(calls).toBe(3);
    cache.forgetUser(ana);
    expect(cache.size).toBe(1);
    expect(await cache.vectorFor(ben, "m", "pets", embed)).toEqual([2]);
    expect(await cache.vectorFor(ana, "m", "pets", embed)).toEqual([4]);
  });

  it("does not keep a failed embedding", async () => {
    const cache = new QueryVectorCache({ capacity: 10, ttlMs: 60_000 });
    const model = embedder();
    const failed = cache.vectorFor(ana, "m", "pets", model.embed("pets"));
    model.pending[0]?.reject(new Error("429"));
    await expect(failed).rejects.toThrow("429");
    const retried = cache.vectorFor(ana, "m", "pets", model.embed("pets"));
    model.pending[1]?.resolve([1]);
    expect(await retried).toEqual([1]);
    expect(model.calls).toHaveLength(2);
  });

  it("evicts the least recently used beyond its capacity, and keeps nothing at capacity 0", async () => {
    const cache = new QueryVectorCache({ capacity: 2, ttlMs: 60_000 });
    let calls = 0;
    const embed = () => Promise.resolve([++calls]);
    await cache.vectorFor(ana, "m", "a", embed);
    await cache.vectorFor(ana, "m", "b", embed);
    await cache.vectorFor(ana, "m", "a", embed); // a is now the most recent
    await cache.vectorFor(ana, "m", "c", embed); // evicts b
    expect(cache.size).toBe(2);
    expect(await cache.vectorFor(ana, "m", "a", embed)).toEqual([1]);
    expect(await cache.vectorFor(ana, "m", "b", embed)).toEqual([4]);

    const none = new QueryVectorCache({ capacity: 0, ttlMs: 60_000 });
    await none.vectorFor(ana, "m", "a", embed);
    await none.vectorFor(ana, "m", "a", embed);
    expect(calls).toBe(6);
    expect(none.size).toBe(0);
  });
});
