import { Annotation, END, getStore, type LangGraphRunnableConfig, START, StateGraph } from "@langchain/langgraph";
import { MnemoStore } from "../integrations/langgraph/store.js";
import { startInProcess } from "./in-process.js";

/**
 * `npx tsx examples/langgraph-store.ts`: a LangGraph graph whose nodes keep memory in this service
 * through LangGraph's store (`compile({ store })`): one node writes what the user asks it to
 * remember (`config.store.put`), another answers from recall (`getStore().search`). No model: the
 * graph's logic is plain code, so it runs offline. Exits non-zero when a step does not do what it says.
 */
function check(holds: boolean, step: string): void {
  if (!holds) throw new Error(`step failed: ${step}`);
  console.log(`ok: ${step}`);
}

const State = Annotation.Root({ userId: Annotation<string>(), message: Annotation<string>(), reply: Annotation<string>() });

const { runtime, client, settled } = await startInProcess();
try {
  const store = new MnemoStore(client);
  const graph = new StateGraph(State)
    .addNode("remember", async (state: typeof State.State, config: LangGraphRunnableConfig) => {
      const note = /^remember (?:that )?(.+)$/i.exec(state.message)?.[1];
      if (note) await config.store?.put([state.userId, "notes"], `note-${Date.now()}`, { content: note });
      return {};
    })
    .addNode("answer", async (state: typeof State.State) => {
      const [best] = (await getStore()?.search([state.userId], { query: state.message, limit: 1 })) ?? [];
      return { reply: best ? `${best.value["content"]} (${best.namespace.join("/")}, score ${best.score?.toFixed(2)})` : "nothing yet" };
    })
    .addEdge(START, "remember")
    .addEdge("remember", "answer")
    .addEdge("answer", END)
    .compile({ store });

  await graph.invoke({ userId: "rosa", message: "Remember that my bike is a blue Gazelle." });
  await graph.invoke({ userId: "rosa", message: "Remember that I water the ferns on Sundays." });
  check((await store.search(["rosa", "notes"])).length === 2, "put: two notes written through config.store");

  await settled("rosa");
  const { reply } = await graph.invoke({ userId: "rosa", message: "Which bike do I have?" });
  console.log(`graph answer: ${reply}`);
  check(reply.startsWith("my bike is a blue Gazelle."), "search: the graph recalls the note by its meaning, with a score");

  await store.put(["rosa", "profile"], "city", { content: "Rosa lives in Utrecht." });
  check((await store.get(["rosa", "profile"], "city"))?.value["content"] === "Rosa lives in Utrecht.", "get: the fact profile:city");
  const namespaces = await store.listNamespaces({ prefix: ["rosa"] });
  console.log(`namespaces: ${JSON.stringify(namespaces)}`);
  check(
    JSON.stringify(namespaces) ===
      JSON.stringify([
        ["rosa", "notes"],
        ["rosa", "profile"],
      ]),
    "listNamespaces: notes and profile",
  );

  await store.delete(["rosa", "profile"], "city");
  check((await store.get(["rosa", "profile"], "city")) === null, "delete: the fact is forgotten (its history kept)");
} finally {
  await runtime.close();
}
