import { Command, InvalidArgumentError } from "commander";
import { type Runtime, startRuntime } from "../functions/node-runtime.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { createApiKey, listApiKeys, revokeApiKey } from "../src/auth/api-keys.js";
import { type Env, parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { runDecay } from "../src/memory/decay.js";
import { findUnembedded, storeEmbeddings } from "../src/memory/embeddings.js";
import { resetDerivedMemory } from "../src/memory/rebuild.js";
import { DecayParametersSchema } from "../src/memory/retention.js";
import { exportUser } from "./export-user.js";
import { importEvents } from "./import-events.js";

/**
 * `npx mnemo <command>`: operations on the configured store (DATA_DIR or DATABASE_URL, as
 * `npm start` reads them). `npx mnemo --help` lists the commands.
 */
const env = (): Env => parseEnv(process.env);
const integer = (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError("expected a positive integer");
  return parsed;
};

/** A runtime without the background executor unless a command needs the pipeline to run. */
async function withRuntime<T>(work: (runtime: Runtime) => Promise<T>, options: { pipeline: boolean } = { pipeline: false }): Promise<T> {
  const runtime = await startRuntime(parseEnv({ ...process.env, EXECUTOR_ENABLED: options.pipeline ? "true" : "false", RATE_LIMIT_PER_MINUTE: "0" }));
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

const program = new Command().name("mnemo").description("Event-sourced memory for LLM agents").showHelpAfterError();

program
  .command("start")
  .description("run the HTTP service (same as npm start)")
  .action(async () => {
    await import("../functions/node.js");
  });

program
  .command("migrate")
  .description("apply the committed migrations to the configured database")
  .action(async () => {
    const handle = await connectDatabase(env());
    try {
      await migrateDatabase(handle);
      console.log(`migrations applied (${handle.kind})`);
    } finally {
      await handle.close();
    }
  });

program
  .command("create-key")
  .description("create an API key for an app; printed once, stored hashed")
  .requiredOption("--app <app_id>", "the app the key acts in")
  .option("--name <label>", "a label for listings", "default")
  .action(async (options: { app: string; name: string }) => {
    const handle = await connectDatabase(env());
    try {
      if (handle.kind === "pglite") await migrateDatabase(handle);
      const created = await createApiKey(handle.db, { appId: options.app, name: options.name });
      console.log(`created key ${created.id} for app "${options.app}". Store it now; it is not shown again:\n${created.key}`);
    } finally {
      await handle.close();
    }
  });

program
  .command("keys")
  .description("list API keys, or revoke one with --revoke <id>")
  .option("--app <app_id>", "only this app's keys")
  .option("--revoke <key_id>", "revoke this key")
  .action(async (options: { app?: string; revoke?: string }) => {
    const handle = await connectDatabase(env());
    try {
      if (handle.kind === "pglite") await migrateDatabase(handle);
      if (options.revoke) console.log((await revokeApiKey(handle.db, options.revoke)) ? `revoked ${options.revoke}` : `no live key ${options.revoke}`);
      else for (const key of await listApiKeys(handle.db, options.app)) console.log(`${key.id}  ${key.appId}  ${key.name}  ${key.prefix}…${key.revokedAt ? "  revoked" : ""}`);
    } finally {
      await handle.close();
    }
  });

program
  .command("import <file>")
  .description("import a JSONL file of events ({session, user_id, app_id?, type?, role?, content, occurred_at?}) with a progress bar")
  .option("--batch <n>", "events per append request", integer, 100)
  .option("--wait", "run the pipeline until the imported users' memory is derived")
  .option("--no-progress", "no progress bar")
  .action(async (file: string, options: { batch: number; wait?: boolean; progress: boolean }) => {
    await withRuntime(
      async (runtime) => {
        const result = await importEvents(runtime, file, { batch: options.batch, progress: options.progress });
        console.log(`imported ${result.events} events (${result.stored} new) into ${result.sessions} sessions`);
        if (options.wait) {
          await runtime.background.settle();
          for (const user of result.users) await waitForSettled(runtime.app, user.userId, { appId: user.appId, failOnFailedRuns: true, intervalMs: 250 });
          console.log("pipeline settled");
        }
      },
      { pipeline: Boolean(options.wait) },
    );
  });

program
  .command("replay")
  .description("derive a user's memory again from the event log (rebuild) and wait until done")
  .requiredOption("--user <user_id>")
  .option("--app <app_id>", "the app", "default")
  .action(async (options: { user: string; app: string }) => {
    await withRuntime(
      async (runtime) => {
        const plan = await resetDerivedMemory(runtime.database.db, { appId: options.app, userId: options.user });
        await runtime.notifier.rederive(plan.sessions);
        await waitForSettled(runtime.app, options.user, { appId: options.app, failOnFailedRuns: true, intervalMs: 250 });
        const current = await runtime.app.request(`/v1/memories?user_id=${encodeURIComponent(options.user)}&app_id=${encodeURIComponent(options.app)}&limit=500`);
        const { memories } = (await current.json()) as { memories: unknown[] };
        console.log(`removed ${plan.deletedMemories} derived memories; replayed ${plan.sessions.length} sessions; rebuilt: ${memories.length} current memories`);
      },
      { pipeline: true },
    );
  });

program
  .command("backfill")
  .description("embed every memory that has no vector from the configured model, now")
  .option("--user <user_id>", "only this user (with --app)")
  .option("--app <app_id>", "the app", "default")
  .option("--batch <n>", "memories per embedding call", integer, 64)
  .action(async (options: { user?: string; app: string; batch: number }) => {
    await withRuntime(async (runtime) => {
      const { embedder } = runtime.providers;
      const scope = options.user ? { appId: options.app, userId: options.user } : undefined;
      let embedded = 0;
      for (;;) {
        const rows = await findUnembedded(runtime.database.db, embedder.model, options.batch, scope);
        if (rows.length === 0) break;
        const vectors = await embedder.embed(rows.map((row) => row.content));
        embedded += await storeEmbeddings(runtime.database.db, embedder.model, rows.map((row, index) => ({ id: row.id, vector: vectors[index] as number[] })));
        process.stderr.write(`\rembedded ${embedded}`);
      }
      console.log(`${embedded > 0 ? "\n" : ""}embedded ${embedded} memories with ${embedder.model}`);
    });
  });

program
  .command("decay")
  .description("a decay pass: reports what would be forgotten; --apply forgets it")
  .option("--user <user_id>", "only this user")
  .option("--app <app_id>", "only this app")
  .option("--apply", "really forget (default: dry run)")
  .option("--preset <preset>", "default, high_interaction, low_interaction, sensitive, knowledge")
  .action(async (options: { user?: string; app?: string; apply?: boolean; preset?: string }) => {
    const parameters = DecayParametersSchema.safeParse(options.preset ? { preset: options.preset } : {});
    if (!parameters.success) throw new InvalidArgumentError(`--preset: ${parameters.error.issues[0]?.message}`);
    await withRuntime(async (runtime) => {
      const report = await runDecay(runtime.database.db, { ...(options.user ? { userId: options.user } : {}), ...(options.app ? { appId: options.app } : {}) }, parameters.data, !options.apply);
      console.log(JSON.stringify({ ...report, forgotten: report.forgotten.length, forgotten_ids: report.forgotten.map((memory) => memory.id) }, null, 2));
    });
  });

program
  .command("export")
  .description("everything stored about a user, as JSONL on stdout")
  .requiredOption("--user <user_id>")
  .option("--app <app_id>", "the app", "default")
  .action(async (options: { user: string; app: string }) => {
    await withRuntime(async (runtime) => {
      for await (const record of exportUser(runtime.database.db, { appId: options.app, userId: options.user })) process.stdout.write(`${JSON.stringify(record)}\n`);
    });
  });

/** Runs a script that reads its own arguments, as if it had been started with what follows `command`. */
const handOver = (command: string, load: () => Promise<unknown>) => async () => {
  process.argv = [process.argv[0] as string, command, ...process.argv.slice(process.argv.indexOf(command) + 1)];
  await load();
};

program
  .command("eval [dir]")
  .description("LoCoMo evidence recall of context windows (npm run eval:locomo)")
  .allowUnknownOption()
  .action(handOver("eval", () => import("../scripts/eval-locomo.js")));

program
  .command("bench")
  .description("benchmarks (npm run bench); options: --iterations, --retrieval-iterations, --scale")
  .allowUnknownOption()
  .action(handOver("bench", () => import("../bench/index.js")));

await program.parseAsync(process.argv);
