import { createEvent, createSession } from "@google/adk";
import { MnemoMemoryService } from "../integrations/adk/memory-service.js";
import { startInProcess } from "./in-process.js";

/** `npx tsx examples/adk-memory-service.ts`: an ADK agent's finished session becomes memory. */
const { runtime, client, settled } = await startInProcess();
try {
  const memory = new MnemoMemoryService(client);
  const said = (author: string, text: string) =>
    createEvent({ author, content: { role: author === "user" ? "user" : "model", parts: [{ text }] } });
  await memory.addSessionToMemory(
    createSession({
      id: "adk-session-1",
      appName: "travel-agent",
      userId: "noor",
      events: [
        said("user", "I am vegetarian and I live in Lisbon."),
        said("travel_agent", "Noted! I will only suggest vegetarian places."),
        said("user", "Next month I fly to Tokyo for a conference."),
      ],
    }),
  );
  await settled("noor");
  const { memories } = await memory.searchMemory({ appName: "travel-agent", userId: "noor", query: "What does Noor eat?" });
  console.log(`search_memory("What does Noor eat?") → ${memories.length} memories`);
  for (const entry of memories.slice(0, 3)) console.log(`- ${(entry.content.parts ?? []).map((part) => part.text).join(" ")}`);
} finally {
  await runtime.close();
}
