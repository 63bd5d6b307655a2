import { drizzle } from "drizzle-orm/node-postgres";
import type { ExecutionContext } from "hono";
import pg from "pg";
import type { Database } from "../../src/db/database.js";
import * as schema from "../../src/db/schema/index.js";
import { BackgroundTasks } from "../background.js";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../middleware/error-handler.js";
import { type Bindings, type Isolate, startIsolate } from "./isolate.js";
import { runInScope } from "./request-scope.js";

let isolate: Promise<Isolate> | undefined;

/**
 * The Worker: the same Hono app as on Node, built once per isolate, with Postgres over TCP through
 * Hyperdrive — one connection per request (Workers cannot share sockets between requests;
 * Hyperdrive pools them), held until the response body has been sent (a live stream keeps it) and
 * the request's after-response work is done. Inngest Cloud calls `/api/inngest` with signed
 * requests; the dashboard and the tokenizer's table are static assets.
 */
export default {
  async fetch(request: Request, bindings: Bindings, ctx: ExecutionContext): Promise<Response> {
    isolate ??= startIsolate(bindings).catch((error: unknown) => {
      isolate = undefined;
      throw error;
    });
    const { app, logger, connectionString } = await isolate;
    const client = new pg.Client({ connectionString });
    client.on("error", (error) => logger.warn("database connection lost", { error }));
    try {
      await client.connect();
    } catch (error) {
      logger.error("database unavailable", { error });
      return unavailable();
    }
    const scope = {
      db: drizzle(client, { schema }) as unknown as Database,
      connection: client,
      background: new BackgroundTasks(logger.error),
    };
    let response: Response;
    try {
      response = await runInScope(scope, () => app.fetch(request, bindings, ctx));
    } catch (error) {
      await client.end();
      throw error;
    }
    const { forwarded, sent } = untilSent(response);
    ctx.waitUntil(runInScope(scope, () => sent.then(() => scope.background.settle())).finally(() => client.end().catch(() => undefined)));
    return forwarded;
  },
};

/** The response as sent, and a promise that settles once its body has been read to the end or abandoned. */
function untilSent(response: Response): { forwarded: Response; sent: Promise<void> } {
  if (!response.body) return { forwarded: response, sent: Promise.resolve() };
  const { readable, writable } = new TransformStream();
  const sent = response.body.pipeTo(writable).catch(() => undefined);
  return { forwarded: new Response(readable, response), sent };
}

function unavailable(): Response {
  return Response.json(
    {
      error: {
        code: "unavailable",
        message: "the database is unavailable; retry shortly",
        details: { retry_after_seconds: UNAVAILABLE_RETRY_AFTER_SECONDS },
      },
    },
    { status: 503, headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) } },
  );
}
