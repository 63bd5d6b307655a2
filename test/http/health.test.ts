import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { onPostgres } from "../fixtures/database.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

describe("health", () => {
  it("/livez answers without the database; /readyz and its alias /healthz check database, migrations and pipeline", async () => {
    runtime = await startTestRuntime();
    expect(await call(runtime.app, "GET", "/livez")).toEqual({ status: 200, body: { status: "ok" } });
    for (const path of ["/readyz", "/healthz"]) {
      const { status, body } = await call(runtime.app, "GET", path);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        status: "ok",
        database: { driver: onPostgres ? "pg" : "pglite" },
        pipeline: { driver: "embedded executor", ready: true },
        draining: false,
      });
      expect(body.migrations.applied).toBe(body.migrations.expected);
      expect(body.migrations.expected).toBeGreaterThan(10);
    }
  });

  it("is not ready once draining, while /livez still answers", async () => {
    runtime = await startTestRuntime();
    const drained = runtime.beginDrain();
    const { status, body } = await call(runtime.app, "GET", "/readyz");
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: "unavailable", draining: true });
    expect((await call(runtime.app, "GET", "/livez")).status).toBe(200);
    await drained;
  });

  it("once draining, answers 503 without waiting for the database", async () => {
    runtime = await startTestRuntime();
    await runtime.beginDrain();
    // PGlite has one connection: a statement holding it would hold any readiness check that asked it.
    let held = true;
    const holding = runtime.database.db.execute(sql`SELECT pg_sleep(1.5)`).finally(() => {
      held = false;
    });
    const { status, body } = await call(runtime.app, "GET", "/readyz");
    expect({ status, held }).toEqual({ status: 503, held: true });
    expect(body).toMatchObject({ status: "unavailable", draining: true, database: { driver: onPostgres ? "pg" : "pglite" } });
    await holding;
  });

  it("is not ready when the executor has stopped, or when a migration is missing", async () => {
    runtime = await startTestRuntime();
    await runtime.executor?.stop();
    expect((await call(runtime.app, "GET", "/readyz")).body).toMatchObject({ status: "unavailable", pipeline: { ready: false } });
    await runtime.executor?.start();
    expect((await call(runtime.app, "GET", "/readyz")).status).toBe(200);

    // As if this release shipped one migration more than the database has applied.
    await runtime.database.db.execute(
      sql`DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)`,
    );
    const { status, body } = await call(runtime.app, "GET", "/readyz");
    expect(status).toBe(503);
    expect(body.migrations.applied).toBe(body.migrations.expected - 1);
  });

  it("a process that does not run the executor (EXECUTOR_ENABLED=false) is ready", async () => {
    runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
    const { status, body } = await call(runtime.app, "GET", "/readyz");
    expect(status).toBe(200);
    expect(body.pipeline.driver).toContain("EXECUTOR_ENABLED=false");
  });
});
