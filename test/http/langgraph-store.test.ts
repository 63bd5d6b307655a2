import { Annotation, END, getStore, type LangGraphRunnableConfig, START, StateGraph } from "@langchain/langgraph";
import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessClient } from "../../examples/in-process.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { MnemoStore } from "../../integrations/langgraph/store.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ REFLECTION_IMPORTANCE_THRESHOLD: "1000" });
});
afterAll(() => runtime.close());

const client = () => inProcessClient(runtime.app);

type Version = { id: string; key: string | null; expired_at: string | null; invalid_at: string | null; superseded_by: string | null };
const current = (rows: Version[]) => rows.filter((row) => row.expired_at === null && row.invalid_at === null);
async function versions(userId: string, key: string): Promise<Version[]> {
  const { body } = await call(runtime.app, "GET", `/v1/memories?user_id=${userId}&key=${encodeURIComponent(key)}&include_expired=true`);
  return body.memories as Version[];
}

describe("LangGraph: MnemoStore, the BaseStore contract", () => {
  it("puts, gets, updates with history and deletes items under their namespace and key", async () => {
    const store = new MnemoStore(client());
    expect(await store.get(["ana", "profile"], "diet")).toBeNull();
    await store.put(["ana", "profile"], "diet", { content: "Ana is vegetarian.", since: 2019 });
    const first = await store.get(["ana", "profile"], "diet");
    expect(first).toMatchObject({ namespace: ["ana", "profile"], key: "diet", value: { content: "Ana is vegetarian.", since: 2019 } });
    expect(first?.createdAt).toBeInstanceOf(Date);
    // Stored as the fact profile:diet, the key the pipeline's own facts use.
    expect((await versions("ana", "profile:diet")).map((row) => row.key)).toEqual(["profile:diet"]);

    await store.put(["ana", "profile"], "diet", { content: "Ana is vegan.", since: 2024 });
    const second = await store.get(["ana", "profile"], "diet");
    expect(second?.value).toEqual({ content: "Ana is vegan.", since: 2024 });
    expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime());
    expect(second?.updatedAt.getTime()).toBeGreaterThanOrEqual(first?.updatedAt.getTime() ?? Number.NaN);
    // The old value is kept as a superseded version, not overwritten.
    const kept = await versions("ana", "profile:diet");
    expect(kept).toHaveLength(2);
    expect(current(kept)).toHaveLength(1);
    // The same value again changes nothing.
    await store.put(["ana", "profile"], "diet", { content: "Ana is vegan.", since: 2024 });
    expect(await versions("ana", "profile:diet")).toHaveLength(2);

    await store.delete(["ana", "profile"], "diet");
    expect(await store.get(["ana", "profile"], "diet")).toBeNull();
    await store.delete(["ana", "profile"], "diet");
    // Forgotten, not erased: the deleted version keeps its history.
    const deleted = (await versions("ana", "profile:diet")).find((row) => row.expired_at !== null && row.superseded_by === null);
    const history = (await call(runtime.app, "GET", `/v1/memories/${deleted?.id}/history`)).body;
    expect(JSON.stringify(history.history)).toContain("DELETE");
    // Put again after a delete: a new item.
    await store.put(["ana", "profile"], "diet", { content: "Ana eats fish again." });
    expect((await store.get(["ana", "profile"], "diet"))?.value).toEqual({ content: "Ana eats fish again." });
  });

  it("keeps namespaces, users and keys apart, case and punctuation included", async () => {
    const store = new MnemoStore(client());
    await store.put(["bea", "notes"], "Trip Plan", { content: "Bea plans a trip to Kyoto in spring." });
    await store.put(["bea", "notes"], "trip plan", { content: "Bea's lowercase note about bicycles." });
    await store.put(["bea", "notes", "work"], "a:b", { content: "Bea's colleague is called Rui." });
    await store.put(["cai", "notes"], "Trip Plan", { content: "Cai plans a trip to Oslo." });
    expect((await store.get(["bea", "notes"], "Trip Plan"))?.value["content"]).toBe("Bea plans a trip to Kyoto in spring.");
    expect((await store.get(["bea", "notes"], "trip plan"))?.value["content"]).toBe("Bea's lowercase note about bicycles.");
    expect((await store.get(["bea", "notes", "work"], "a:b"))?.value["content"]).toBe("Bea's colleague is called Rui.");
    expect(await store.get(["bea", "notes"], "a:b")).toBeNull();
    expect((await store.get(["cai", "notes"], "Trip Plan"))?.value["content"]).toBe("Cai plans a trip to Oslo.");
    const beas = await store.search(["bea"], { limit: 50 });
    expect(beas.map((item) => [item.namespace, item.key])).toEqual(
      expect.arrayContaining([
        [["bea", "notes"], "Trip Plan"],
        [["bea", "notes"], "trip plan"],
        [["bea", "notes", "work"], "a:b"],
      ]),
    );
    expect(beas.every((item) => item.namespace[0] === "bea")).toBe(true);
    expect((await store.search(["bea", "notes", "work"])).map((item) => item.key)).toEqual(["a:b"]);
  });

  it("searches by query through recall with scores, and by filters without one", async () => {
    const store = new MnemoStore(client());
    const put = (key: string, content: string, extra: Record<string, unknown>) => store.put(["dev", "trips"], key, { content, ...extra });
    await put("lisbon", "Dev visited Lisbon and loved the custard tarts.", { year: 2021, rating: 5 });
    await put("oslo", "Dev went skiing near Oslo in a snowstorm.", { year: 2023, rating: 3 });
    await put("cairo", "Dev saw the pyramids outside Cairo at sunrise.", { year: 2024, rating: 4 });
    await store.put(["dev", "profile"], "food", { content: "Dev loves spicy food." });
    await waitForSettled(runtime.app, "dev");

    const hits = await store.search(["dev", "trips"], { query: "skiing in the snow", limit: 3 });
    expect(hits[0]?.key).toBe("oslo");
    expect(hits.every((hit) => typeof hit.score === "number" && (hit.score as number) > 0 && (hit.score as number) <= 1)).toBe(true);
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => (b as number) - (a as number)));
    // Recall's own scores: the best hit scores above the weakest.
    expect(hits).toHaveLength(3);
    expect(hits[0]?.score).toBeGreaterThan(hits[2]?.score as number);
    expect(hits.every((hit) => hit.namespace[1] === "trips")).toBe(true);
    // Filters apply to query hits too.
    const good = await store.search(["dev", "trips"], { query: "a trip", filter: { rating: { $gte: 4 } }, limit: 10 });
    expect(good.map((hit) => hit.key).sort()).toEqual(["cairo", "lisbon"]);

    // Without a query: the newest first, filtered, paged.
    const all = await store.search(["dev", "trips"], { limit: 10 });
    expect(all.map((item) => item.key)).toEqual(["cairo", "oslo", "lisbon"]);
    expect((await store.search(["dev", "trips"], { filter: { year: 2023 } })).map((item) => item.key)).toEqual(["oslo"]);
    expect(
      (await store.search(["dev", "trips"], { filter: { year: { $in: [2021, 2024] }, rating: { $ne: 4 } } })).map((i) => i.key),
    ).toEqual(["lisbon"]);
    expect((await store.search(["dev", "trips"], { limit: 1, offset: 1 })).map((item) => item.key)).toEqual(["oslo"]);
    // The whole user: trips, profile and the pipeline's derived kinds.
    const everything = await store.search(["dev"], { query: "spicy food", limit: 5 });
    expect(everything[0]).toMatchObject({ namespace: ["dev", "profile"], key: "food" });
  });

  it("lists a user's namespaces by prefix, suffix and depth; the pipeline's facts and memories are items too", async () => {
    const memory = client();
    const store = new MnemoStore(memory);
    const session = await createSession(runtime.app, "eli");
    await call(runtime.app, "POST", `/v1/sessions/${session}/events`, {
      events: [message("user", "I live in Lisbon and I work as a nurse."), message("assistant", "Nice to meet you.")],
    });
    await call(runtime.app, "POST", `/v1/sessions/${session}/end`);
    await waitForSettled(runtime.app, "eli");
    await store.put(["eli", "notes", "garden"], "roses", { content: "Eli prunes the roses in March." });

    // A fact the pipeline extracted, under the key it chose.
    const location = await store.get(["eli", "profile"], "location");
    expect(location?.value).toMatchObject({ content: "User lives in Lisbon." });
    const namespaces = await store.listNamespaces({ prefix: ["eli"] });
    expect(namespaces).toEqual(
      expect.arrayContaining([
        ["eli", "profile"],
        ["eli", "notes", "garden"],
        ["eli", "episodic"],
      ]),
    );
    expect(namespaces).toEqual([...namespaces].sort((a, b) => a.join("\u0000").localeCompare(b.join("\u0000"))));
    expect(await store.listNamespaces({ prefix: ["eli"], maxDepth: 2 })).toContainEqual(["eli", "notes"]);
    expect(await store.listNamespaces({ prefix: ["eli"], maxDepth: 2 })).not.toContainEqual(["eli", "notes", "garden"]);
    expect(await store.listNamespaces({ prefix: ["eli"], suffix: ["garden"] })).toEqual([["eli", "notes", "garden"]]);
    expect(await store.listNamespaces({ prefix: ["eli", "*", "garden"] })).toEqual([["eli", "notes", "garden"]]);
    expect(await store.listNamespaces({ prefix: ["eli"], limit: 1, offset: 1 })).toEqual([namespaces[1]]);
    await expect(store.listNamespaces({ suffix: ["garden"] })).rejects.toThrow(/must name the user/);

    // A turn memory of the pipeline: searched, read and forgotten by id, never put.
    const [turn] = await store.search(["eli", "episodic"], { query: "nurse", limit: 1 });
    expect(turn?.value["content"]).toMatch(/nurse/);
    expect(await store.get(["eli", "episodic"], turn?.key ?? "")).toMatchObject({ key: turn?.key });
    await store.delete(["eli", "episodic"], turn?.key ?? "");
    expect(await store.get(["eli", "episodic"], turn?.key ?? "")).toBeNull();
    await expect(store.put(["eli", "insight"], "x", { content: "Eli likes plants." })).rejects.toThrow(/never put/);
  });

  it("runs batches in order, and takes concurrent writers without a second current version", async () => {
    const store = new MnemoStore(client());
    const [, got, , listed] = await store.batch([
      { namespace: ["fay", "prefs"], key: "tea", value: { content: "Fay drinks green tea." } },
      { namespace: ["fay", "prefs"], key: "tea" },
      { namespace: ["fay", "prefs"], key: "tea", value: null },
      { namespacePrefix: ["fay"], limit: 10, offset: 0 },
    ]);
    expect(got).toMatchObject({ key: "tea", value: { content: "Fay drinks green tea." } });
    expect(listed).toEqual([]);

    await Promise.all(
      ["Fay cycles to work.", "Fay walks to work.", "Fay takes the tram to work.", "Fay drives to work."].map((content) =>
        store.put(["fay", "prefs"], "commute", { content }).catch((error: unknown) => error),
      ),
    );
    const rows = await versions("fay", "prefs:commute");
    expect(rows.length).toBeGreaterThan(1);
    expect(current(rows)).toHaveLength(1);
    expect((await store.get(["fay", "prefs"], "commute"))?.value["content"]).toMatch(/^Fay .* to work\.$/);
    const books = ["a novel about whaling", "a history of Rome", "a cookbook of Thai soups", "a guide to birds", "a biography of Curie"];
    await Promise.all(books.map((book, index) => store.put(["fay", "books"], `book-${index}`, { content: `Fay owns ${book}.` })));
    expect((await store.search(["fay", "books"], { limit: 20 })).map((item) => item.key).sort()).toEqual(
      books.map((_, index) => `book-${index}`),
    );
  });

  it("refuses hostile input before it reaches the service, and a value the memory already holds under another key", async () => {
    const store = new MnemoStore(client());
    await expect(store.put(["gus", "a.b"], "k", { content: "x" })).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(store.put(["gus"], "k", { content: "x" })).rejects.toThrow(/shorter than its layout/);
    await expect(store.put(["gus", "notes"], "k", { content: "x", bad: Number.NaN })).rejects.toThrow(/must be JSON/);
    await expect(store.put(["gus", "notes"], "k".repeat(200), { content: "x" })).rejects.toThrow(/keeps 120/);
    await expect(store.put(["gus", "notes"], "k", { content: "   " })).rejects.toThrow(/no text/);
    await expect(store.put(["gus", "notes"], "k", { content: "x" }, false)).rejects.toThrow(/index: false/);
    await expect(store.search(["gus"], { limit: 0 })).rejects.toThrow();
    await expect(store.search(["gus"], { query: "x", limit: 60, offset: 50 })).rejects.toThrow(/100 best hits/);
    await expect(store.search(["gus"], { filter: { year: { $regex: "x" } } })).rejects.toThrow();
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=gus")).body.memories).toEqual([]);
    expect(() => new MnemoStore(client(), { layout: ["user", "user"] })).toThrow(/names user and kind once each/);

    await store.put(["gus", "notes"], "first", { content: "Gus keeps bees on the roof." });
    await expect(store.put(["gus", "notes"], "second", { content: "Gus keeps bees on the roof." })).rejects.toThrow(/notes:first/);
    expect(await store.get(["gus", "notes"], "second")).toBeNull();
  });

  it("maps other layouts: LangGraph's [kind, user] and an app in the namespace", async () => {
    const kindFirst = new MnemoStore(client(), { layout: ["kind", "user"] });
    await kindFirst.put(["memories", "hal"], "m1", { content: "Hal collects vinyl records." });
    expect((await kindFirst.get(["memories", "hal"], "m1"))?.namespace).toEqual(["memories", "hal"]);
    await expect(kindFirst.search(["memories"])).rejects.toThrow(/must name the user/);
    expect((await kindFirst.search(["memories", "hal"])).map((item) => item.key)).toEqual(["m1"]);

    const withApp = new MnemoStore(client(), { layout: ["app", "user", "kind"] });
    await withApp.put(["shop", "hal", "cart"], "item", { content: "Hal wants a turntable." });
    expect(await withApp.get(["shop", "hal", "cart"], "item")).toMatchObject({ namespace: ["shop", "hal", "cart"] });
    expect(await withApp.get(["other", "hal", "cart"], "item")).toBeNull();
    expect((await call(runtime.app, "GET", "/v1/memories?user_id=hal&app_id=shop")).body.memories).toHaveLength(1);
  });
});

describe("LangGraph: a compiled StateGraph reads and writes memory through its store", () => {
  const State = Annotation.Root({
    userId: Annotation<string>(),
    message: Annotation<string>(),
    reply: Annotation<string>(),
  });

  /** Remembers what the user asks it to (through `config.store`), then answers from recall (through `getStore()`). */
  function assistant(store: MnemoStore) {
    return new StateGraph(State)
      .addNode("remember", async (state: typeof State.State, config: LangGraphRunnableConfig) => {
        const note = /^please remember (?:that )?(.+)$/i.exec(state.message)?.[1];
        if (note) await config.store?.put([state.userId, "notes"], `note-${note.length}`, { content: note, from: "chat" });
        return {};
      })
      .addNode("answer", async (state: typeof State.State) => {
        const hits = (await getStore()?.search([state.userId, "notes"], { query: state.message, limit: 1 })) ?? [];
        const best = hits[0];
        return { reply: best ? `I remember: ${best.value["content"]} (score ${best.score?.toFixed(2)})` : "I know nothing yet." };
      })
      .addEdge(START, "remember")
      .addEdge("remember", "answer")
      .addEdge("answer", END)
      .compile({ store });
  }

  it("writes in one invocation and recalls in the next, for the right user only", async () => {
    const graph = assistant(new MnemoStore(client()));
    expect((await graph.invoke({ userId: "ivy", message: "What is my cat called?" })).reply).toBe("I know nothing yet.");
    await graph.invoke({ userId: "ivy", message: "Please remember that my cat is called Miso." });
    await graph.invoke({ userId: "jon", message: "Please remember that my dog is called Rex." });
    await waitForSettled(runtime.app, "ivy");
    await waitForSettled(runtime.app, "jon");
    const reply = (await graph.invoke({ userId: "ivy", message: "What is my cat called?" })).reply;
    expect(reply).toMatch(/^I remember: my cat is called Miso\. \(score 0\.\d\d\)$/);
    const stored = (await call(runtime.app, "GET", "/v1/memories?user_id=ivy&type=semantic")).body.memories as {
      key: string;
      value: unknown;
    }[];
    expect(stored).toEqual([expect.objectContaining({ key: "notes:note-22", value: { content: "my cat is called Miso.", from: "chat" } })]);
    expect((await graph.invoke({ userId: "jon", message: "What is my cat called?" })).reply).toMatch(/dog is called Rex/);
  });
});
