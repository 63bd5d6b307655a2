import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../functions/node-runtime.js";
import { databaseOptions } from "../../functions/settings.js";
import { connectDatabase } from "../../src/db/connect.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { call, createSession, message, testEnv, waitForSettled } from "../fixtures/runtime.js";
import { testPort } from "../fixtures/test-ports.js";

/**
 * The self-hosted path: node-postgres over the Postgres wire protocol to a server with pgvector
 * (PGlite behind pglite-socket on loopback, the only pgvector server this machine has), migrated
 * the way `npm run migrate` does it.
 */
let pglite: PGlite;
let server: PGLiteSocketServer;
let runtime: Runtime;
const port = testPort("node-postgres");
const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;

beforeAll(async () => {
  pglite = await PGlite.create("memory://", { extensions: { vector, btree_gin } });
  server = new PGLiteSocketServer({ db: pglite, port, host: "127.0.0.1", maxConnections: 4 });
  await server.start();
  const env = testEnv({ DATABASE_URL: url, DATABASE_POOL_MAX: "1" });
  const migration = await connectDatabase(databaseOptions(env));
  expect(migration.kind).toBe("pg");
  await migrateDatabase(migration);
  await migration.close();
  runtime = await startRuntime(env);
});
afterAll(async () => {
  await runtime?.close();
  await server?.stop();
  await pglite?.close();
});

describe("node-postgres driver", () => {
  it("serves the whole path: append, fast replay, embedding, context window", async () => {
    expect((await call(runtime.app, "GET", "/healthz")).body.database.driver).toBe("pg");
    const sessionId = await createSession(runtime.app, "pg-user");
    const appended = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [
        message("user", "Please remember that I am vegetarian."),
        message("user", "I decided to visit Oslo in May.", { idempotency_key: "k" }),
      ],
    });
    expect(appended.body.events.map((event: { seq: number }) => event.seq)).toEqual([1, 2]);
    const resent = await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
      events: [message("user", "I decided to visit Oslo in May.", { idempotency_key: "k" })],
    });
    expect(resent.body.events[0]).toEqual(appended.body.events[1]);
    await waitForSettled(runtime.app, "pg-user");
    const context = await call(runtime.app, "POST", "/v1/context", { user_id: "pg-user", query: "What do I eat?", max_tokens: 500 });
    const memory = context.body.sections.find((section: { kind: string }) => section.kind === "memories").items[0];
    expect(memory.text).toContain("vegetarian");
    expect(memory.sources.map((source: { seq: number }) => source.seq)).toContain(1);
  });
});
