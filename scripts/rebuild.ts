import { parseArgs } from "node:util";
import { startRuntime } from "../functions/node-runtime.js";
import { parseEnv } from "../src/config/env.js";
import { resetDerivedMemory } from "../src/memory/rebuild.js";

/**
 * `npm run rebuild -- --user <id> [--app <id>]` (E4): derive a user's memory again from the event
 * log. Embedded: runs the pipeline in this process until it settles. With INNGEST_MODE=cloud it
 * resets, sends the events and leaves the work to Inngest.
 */
const { values } = parseArgs({ options: { user: { type: "string" }, app: { type: "string", default: "default" } } });
if (!values.user) {
  console.error("usage: npm run rebuild -- --user <user_id> [--app <app_id>]");
  process.exit(2);
}
const env = parseEnv(process.env);
const runtime = await startRuntime(env);
try {
  const plan = await resetDerivedMemory(runtime.database.db, { appId: values.app as string, userId: values.user });
  await runtime.notifier.rederive(plan.sessions);
  console.log(`removed ${plan.deletedMemories} derived memories; replaying ${plan.sessions.length} sessions`);
  if (runtime.executor) {
    for (;;) {
      const status = await (await runtime.app.request(`/v1/pipeline/status?user_id=${encodeURIComponent(values.user)}&app_id=${encodeURIComponent(values.app as string)}`)).json() as { settled: boolean; failed: number };
      if (status.failed > 0) throw new Error(`rebuild has failed runs: ${JSON.stringify(status)}`);
      if (status.settled) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const memories = await (await runtime.app.request(`/v1/memories?user_id=${encodeURIComponent(values.user)}&app_id=${encodeURIComponent(values.app as string)}&limit=500`)).json() as { memories: unknown[] };
    console.log(`rebuilt: ${memories.memories.length} current memories`);
  }
} finally {
  await runtime.close();
}
