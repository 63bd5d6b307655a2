import { MnemoMemoryService } from "../integrations/adk-memory-service.js";
import { startInProcess } from "./in-process.js";

/** `npx tsx examples/adk-memory-service.ts`: an ADK agent's finished session becomes memory. */
const { runtime, client, settled } = await startInProcess();
try {
  const memory = new MnemoMemoryService(client);
  await memory.addSessionToMemory({
    id: "adk-session-1",
    appName: "travel-agent",
    userId: "noor",
    events: [
      { author: "user", content: { parts: [{ text: "I am vegetarian and I live in Lisbon." }] } },
      { author: "travel_agent", content: { parts: [{ text: "Noted! I will only suggest vegetarian places." }] } },
      { author: "user", content: { parts: [{ text: "Next month I fly to Tokyo for a conference." }] } },
    ],
  });
  await settled("noor");
  const { memories } = await memory.searchMemory({ appName: "travel-agent", userId: "noor", query: "What does Noor eat?" });
  console.log(`search_memory("What does Noor eat?") → ${memories.length} memories`);
  for (const entry of memories.slice(0, 3)) console.log(`- ${entry.content.parts.map((part) => part.text).join(" ")}`);
} finally {
  await runtime.close();
}
