import { Command, InvalidArgumentError } from "commander";
import type { FactAuditJson } from "../functions/json/fact-audit.js";
import { databaseOptions, providerChoice } from "../functions/settings.js";
import { waitForSettled } from "../functions/wait-for-settled.js";
import { createApiKey, listApiKeys, revokeApiKey } from "../src/auth/api-keys.js";
import { type Env, parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { DataDirInUseError } from "../src/db/data-dir-lock.js";
import type { DatabaseHandle } from "../src/db/database.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { DecayParametersSchema } from "../src/memory/lifecycle/retention.js";
import { annIndexName, ensureAnnIndex } from "../src/memory/recall/ann-index.js";
import { reconcileUserAnnIndexes } from "../src/memory/recall/user-ann-indexes.js";
import { findUnembedded, storeEmbeddings } from "../src/memory/write/embeddings.js";
import { createProviders } from "../src/providers/index.js";
import { createUseEmbedder } from "../src/providers/offline/use-embedder.js";
import { ExternalIdSchema } from "../src/vocabulary/external-id.js";
import { importEvents } from "./import-events.js";
import { readImportFile } from "./import-file.js";
import { serveMcpOverStdio } from "./mcp-stdio.js";
import { CommandError, openService, requestJson, runningService, type Service } from "./service.js";

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
/** A user or app id, read as every route reads it (trimmed, NFC, 1-200 characters), so the CLI names the same user the API stored. */
const externalId = (value: string) => {
  const parsed = ExternalIdSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? "not a valid id");
  return parsed.data;
};

/** Runs a command against the service (a running server's HTTP API, or one in this process) and closes it. */
async function withService<T>(work: (service: Service) => Promise<T>, options: { pipeline: boolean } = { pipeline: false }): Promise<T> {
  const service = await openService(options);
  try {
    return await work(service);
  } finally {
    await service.close();
  }
}

/** The configured model's vector index, then the largest users' own, as the Node service keeps them. */
async function buildVectorIndexes(handle: DatabaseHandle): Promise<void> {
  const config = env();
  if (handle.kind === "pglite" || config.ANN_INDEX === "off") return;
  const target = (await createProviders(providerChoice(config), { embedder: createUseEmbedder })).embedder;
  const build = { memory: config.ANN_INDEX_BUILD_MEMORY };
  if (!(await ensureAnnIndex(handle.db, target, build))) {
    console.log(`no vector index for ${target.model} (${target.dimensions} dimensions)`);
    return;
  }
  console.log(`vector index ${annIndexName(target)} ready`);
  const policy = { minMemories: config.ANN_USER_INDEX_MIN_MEMORIES, maxIndexes: config.ANN_USER_INDEX_MAX };
  const report = await reconcileUserAnnIndexes(handle.db, target, policy, build);
  console.log(`per-user vector indexes: ${report.built.length} built, ${report.dropped.length} dropped, ${report.pending} pending`);
}

/** Commands that need the database itself: refused (with the holder named) while a server holds PGlite's directory. */
async function withDatabase<T>(work: (handle: DatabaseHandle) => Promise<T>, poolMax?: number): Promise<T> {
  const handle = await connectDatabase({ ...databaseOptions(env()), ...(poolMax ? { poolMax } : {}) });
  try {
    if (handle.kind === "pglite") await migrateDatabase(handle);
    return await work(handle);
  } finally {
    await handle.close();
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
    await withDatabase(async (handle) => {
      await migrateDatabase(handle);
      console.log(`migrations applied (${handle.kind})`);
      await buildVectorIndexes(handle);
      // One connection, so the index build's memory setting reaches the build.
    }, 1);
  });

program
  .command("vector-indexes")
  .description(
    "real Postgres: build the configured model's HNSW index and the largest users' own now, and drop the ones no longer due (the Node service does the same at start-up and every ANN_USER_INDEX_INTERVAL)",
  )
  .action(async () => {
    await withDatabase(buildVectorIndexes, 1);
  });

program
  .command("create-key")
  .description("create an API key for an app; printed once, stored hashed")
  .requiredOption("--app <app_id>", "the app the key acts in", externalId)
  .option("--name <label>", "a label for listings", "default")
  .action(async (options: { app: string; name: string }) => {
    const input = { appId: options.app, name: options.name };
    // A running server mints it through POST /v1/keys (no restart); otherwise straight into the
    // database, which is how the first key is made when keys are required.
    const server = await runningService();
    const created = server
      ? await requestJson<{ id: string; key: string }>(server, "POST", "/v1/keys", { app_id: input.appId, name: input.name })
      : await withDatabase((handle) => createApiKey(handle.db, input));
    console.log(`created key ${created.id} for app "${options.app}". Store it now; it is not shown again:\n${created.key}`);
  });

program
  .command("keys")
  .description("list API keys, or revoke one with --revoke <id>")
  .option("--app <app_id>", "only this app's keys", externalId)
  .option("--revoke <key_id>", "revoke this key")
  .action(async (options: { app?: string; revoke?: string }) => {
    const server = await runningService();
    if (options.revoke) {
      const id = options.revoke;
      const revoked = server ? await revokeThrough(server, id) : await withDatabase((handle) => revokeApiKey(handle.db, id));
      console.log(revoked ? `revoked ${id}` : `no live key ${id}`);
      return;
    }
    const keys = server
      ? (
          await requestJson<{ keys: KeyListing[] }>(
            server,
            "GET",
            `/v1/keys${options.app ? `?${new URLSearchParams({ app_id: options.app })}` : ""}`,
          )
        ).keys
      : (await withDatabase((handle) => listApiKeys(handle.db, options.app))).map((key) => ({
          id: key.id,
          app_id: key.appId,
          name: key.name,
          prefix: key.prefix,
          revoked_at: key.revokedAt,
        }));
    for (const key of keys) console.log(`${key.id}  ${key.app_id}  ${key.name}  ${key.prefix}…${key.revoked_at ? "  revoked" : ""}`);
  });

interface KeyListing {
  id: string;
  app_id: string;
  name: string;
  prefix: string;
  revoked_at: unknown;
}

/** DELETE /v1/keys/:id: true when a live key was revoked, false when there was none. */
async function revokeThrough(server: Service, id: string): Promise<boolean> {
  const response = await server.request(`/v1/keys/${encodeURIComponent(id)}`, { method: "DELETE" });
  if (response.status === 404) return false;
  if (!response.ok) throw new CommandError(`DELETE /v1/keys/${id}: ${response.status} ${await response.text()}`);
  return true;
}

program
  .command("import <file>")
  .description(
    "import a JSONL file with a progress bar: events ({session, user_id, app_id?, type?, role, content, occurred_at?}), or what `mnemo export` writes",
  )
  .option("--batch <n>", "events per append request", integer, 100)
  .option("--wait", "run the pipeline until the imported users' memory is derived")
  .option("--open", "leave the imported sessions open (default: end each one after its events, so reflection runs)")
  .option("--no-progress", "no progress bar")
  .action(async (file: string, options: { batch: number; wait?: boolean; progress: boolean; open?: boolean }) => {
    // The whole file is read and checked first: a line it cannot import stops it before anything is written.
    const plan = await readImportFile(file);
    await withService(
      async (service) => {
        const result = await importEvents(
          service,
          { file, plan },
          { batch: options.batch, progress: options.progress, open: options.open ?? false },
        );
        const extra = result.memories + result.skipped > 0;
        console.log(
          `imported ${result.events} events (${result.stored} new) into ${result.sessions} sessions${
            extra ? `; ${result.memories} memories added through the API again, ${result.skipped} derived records left to the pipeline` : ""
          }`,
        );
        if (options.wait) {
          await service.runtime?.background.settle();
          for (const user of result.users) await waitForSettled(service, user.userId, { appId: user.appId, intervalMs: 250 });
          console.log("pipeline settled");
        }
      },
      { pipeline: Boolean(options.wait) },
    );
  });

program
  .command("replay")
  .description("derive a user's memory again from the event log (rebuild) and wait until done")
  .requiredOption("--user <user_id>", "the user", externalId)
  .option("--app <app_id>", "the app", externalId, "default")
  .option("--diff", "derive in a rolled-back shadow with the current providers and print what would change, applying nothing")
  .action(async (options: { user: string; app: string; diff?: boolean }) => {
    const rebuild = `/v1/users/${encodeURIComponent(options.user)}/rebuild`;
    if (options.diff) {
      await withService(async (service) => {
        console.log(JSON.stringify(await requestJson(service, "POST", rebuild, { app_id: options.app, dry_run: true })));
      });
      return;
    }
    await withService(
      async (service) => {
        const plan = await requestJson<{ deleted_memories: number; sessions: number }>(service, "POST", rebuild, { app_id: options.app });
        await service.runtime?.background.settle();
        await waitForSettled(service, options.user, { appId: options.app, intervalMs: 250 });
        const { memories } = await requestJson<{ memories: unknown[] }>(
          service,
          "GET",
          `/v1/memories?user_id=${encodeURIComponent(options.user)}&app_id=${encodeURIComponent(options.app)}&limit=500`,
        );
        console.log(
          `removed ${plan.deleted_memories} derived memories; replayed ${plan.sessions} sessions; rebuilt: ${memories.length} current memories`,
        );
      },
      { pipeline: true },
    );
  });

program
  .command("facts")
  .description("the user's facts")
  .command("audit")
  .description("report pairs of a user's current facts that cannot both be true; --repair ends the older of each, with history")
  .argument("<user_id>")
  .option("--app <app_id>", "the app", externalId, "default")
  .option("--repair", "end the older fact of each pair (otherwise a dry run: nothing changes)")
  .option("--json", "print the audit as the API answers it")
  .action(async (userId: string, options: { app: string; repair?: boolean; json?: boolean }) => {
    await withService(async (service) => {
      const audit = `/v1/users/${encodeURIComponent(userId)}/facts/audit`;
      const report = options.repair
        ? await requestJson<FactAuditJson>(service, "POST", audit, { app_id: options.app })
        : await requestJson<FactAuditJson>(service, "GET", `${audit}?app_id=${encodeURIComponent(options.app)}`);
      if (options.json) return console.log(JSON.stringify(report));
      for (const pair of report.pairs) console.log(`"${pair.ended.content}" ended by "${pair.kept.content}" — ${pair.reason}`);
      console.log(
        options.repair
          ? `${report.pairs.length} contradictions; ${report.repaired} facts ended`
          : `${report.pairs.length} contradictions (dry run: nothing changed; --repair ends the older fact of each)`,
      );
    });
  });

program
  .command("redact")
  .description("take one event's words back: it becomes a tombstone, and what was derived from it is derived again or retracted")
  .requiredOption("--session <session_id>")
  .requiredOption("--seq <seq>", "the event's seq", integer)
  .option("--reason <text>", "why (kept with the tombstone)")
  .action(async (options: { session: string; seq: number; reason?: string }) => {
    await withService(
      async (service) => {
        const session = `/v1/sessions/${encodeURIComponent(options.session)}`;
        const { redaction } = await requestJson<{ redaction: Record<string, unknown> }>(
          service,
          "POST",
          `${session}/events/${options.seq}/redact`,
          options.reason ? { reason: options.reason } : {},
        );
        const owner = await requestJson<{ user_id: string; app_id: string }>(service, "GET", session);
        await service.runtime?.background.settle();
        await waitForSettled(service, owner.user_id, { appId: owner.app_id, intervalMs: 250 });
        console.log(JSON.stringify(redaction));
      },
      { pipeline: true },
    );
  });

program
  .command("backfill")
  .description("embed every memory that has no vector from the configured model, now")
  .option("--user <user_id>", "only this user (with --app)", externalId)
  .option("--app <app_id>", "the app", externalId, "default")
  .option("--batch <n>", "memories per embedding call", integer, 64)
  .action(async (options: { user?: string; app: string; batch: number }) => {
    await withDatabase(async (handle) => {
      const { embedder } = await createProviders(providerChoice(env()), { embedder: createUseEmbedder });
      const scope = options.user ? { appId: options.app, userId: options.user } : undefined;
      let embedded = 0;
      for (;;) {
        const rows = await findUnembedded(handle.db, embedder.model, options.batch, scope);
        if (rows.length === 0) break;
        const vectors = await embedder.embed(rows.map((row) => row.content));
        embedded += await storeEmbeddings(
          handle.db,
          embedder.model,
          rows.map((row, index) => ({ id: row.id, vector: vectors[index] as number[] })),
        );
        process.stderr.write(`\rembedded ${embedded}`);
      }
      console.log(`${embedded > 0 ? "\n" : ""}embedded ${embedded} memories with ${embedder.model}`);
    });
  });

program
  .command("decay")
  .description("a decay pass: reports what would be forgotten; --apply forgets it")
  .option("--user <user_id>", "only this user", externalId)
  .option("--app <app_id>", "only this app", externalId)
  .option("--apply", "really forget (default: dry run)")
  .option("--preset <preset>", "default, high_interaction, low_interaction, sensitive, knowledge")
  .action(async (options: { user?: string; app?: string; apply?: boolean; preset?: string }) => {
    const parameters = DecayParametersSchema.safeParse(options.preset ? { preset: options.preset } : {});
    if (!parameters.success) throw new InvalidArgumentError(`--preset: ${parameters.error.issues[0]?.message}`);
    // The same request and the same answer as POST /v1/decay/run.
    await withService(async (service) => {
      const body = {
        ...parameters.data,
        dry_run: !options.apply,
        ...(options.user ? { user_id: options.user } : {}),
        ...(options.app ? { app_id: options.app } : {}),
      };
      console.log(JSON.stringify(await requestJson(service, "POST", "/v1/decay/run", body), null, 2));
    });
  });

program
  .command("export")
  .description("everything stored about a user, as JSONL on stdout")
  .requiredOption("--user <user_id>", "the user", externalId)
  .option("--app <app_id>", "the app", externalId, "default")
  .action(async (options: { user: string; app: string }) => {
    // The API's own export: the same records (snake_case, ISO times) from a server or in-process.
    await withService(async (service) => {
      const query = new URLSearchParams({ app_id: options.app });
      const response = await service.request(`/v1/users/${encodeURIComponent(options.user)}/export?${query}`);
      if (response.status !== 200 || !response.body) throw new CommandError(`export: ${response.status} ${await response.text()}`);
      for await (const chunk of response.body) process.stdout.write(chunk);
    });
  });

program
  .command("retry")
  .description("retry a user's failed or parked pipeline stages (dead letters) and wait until done")
  .requiredOption("--user <user_id>", "the user", externalId)
  .option("--app <app_id>", "the app", externalId, "default")
  .option("--stage <stage>", "only this stage: replay, reflection or embedding")
  .option("--no-wait", "send the retries and return")
  .action(async (options: { user: string; app: string; stage?: string; wait: boolean }) => {
    await withService(
      async (service) => {
        const answer = await requestJson<{ retried: unknown }>(service, "POST", "/v1/pipeline/retry", {
          user_id: options.user,
          app_id: options.app,
          ...(options.stage ? { stage: options.stage } : {}),
        });
        console.log(JSON.stringify(answer.retried));
        if (options.wait) {
          await waitForSettled(service, options.user, { appId: options.app, intervalMs: 250 });
          console.log("pipeline settled");
        }
      },
      { pipeline: options.wait },
    );
  });

program
  .command("mcp")
  .description(
    "an MCP server on stdin/stdout for desktop clients: the tools of /v1/mcp, on the server holding DATA_DIR (or MNEMO_URL), else in this process",
  )
  .action(async () => {
    const stop = new AbortController();
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stop.abort());
    // In this process, the pipeline runs too: what the tools write is derived and embedded while the client is connected.
    await withService((service) => serveMcpOverStdio(service, undefined, stop.signal), { pipeline: true });
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

await program.parseAsync(process.argv).catch((error: unknown) => {
  // Expected refusals (bad input, a refused request, a held directory) get their message alone, in
  // one line; anything else keeps its stack for a bug report.
  const expected = error instanceof DataDirInUseError || error instanceof CommandError;
  process.stderr.write(`${expected ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
