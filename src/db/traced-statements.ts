import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { tracer, tracingRecorded } from "../telemetry/tracing.js";
import { statementSummary } from "../util/statement-summary.js";
import { observeStatement } from "./statement-waves.js";

// biome-ignore lint/suspicious/noExplicitAny: drivers' query signatures differ; arguments pass through untouched.
type Query = (...args: any[]) => any;

const traced = new WeakSet<object>();

/**
 * A span per statement, named by what the statement touches (`SELECT memories`, or a prepared
 * statement's name) and never by its values or parameters, as a child of the span in progress
 * (a request, a durable step): statements outside any span (the executor's queue polls) start no
 * trace of their own. Nothing is done while no SDK records spans. Each statement is also reported
 * to the wave counter of the work that sent it (`statement-waves.ts`), if one counts. Patches
 * `query` in place.
 */
export function traceQueries<Client extends { query: Query }>(client: Client): Client {
  if (traced.has(client)) return client;
  traced.add(client);
  const query = client.query.bind(client) as Query;
  client.query = ((...args: unknown[]) => {
    // A pool's own query runs on a client it checks out, callback style: it was traced (and
    // counted) at the pool, whichever client serves it, one the pool handed out before included.
    if (typeof args.at(-1) === "function") return query(...args);
    if (!tracingRecorded() || !trace.getActiveSpan()) return observeStatement(query(...args), () => statementName(args[0]));
    const name = statementName(args[0]);
    return observeStatement(
      tracer().startActiveSpan(
        name,
        { kind: SpanKind.CLIENT, attributes: { "db.system.name": "postgresql", "db.query.summary": name } },
        async (span) => {
          try {
            return await query(...args);
          } catch (error) {
            const code = (error as { code?: unknown }).code;
            span.setStatus({ code: SpanStatusCode.ERROR });
            if (typeof code === "string") span.setAttribute("db.response.status_code", code);
            throw error;
          } finally {
            span.end();
          }
        },
      ),
      () => name,
    );
  }) as Client["query"];
  return client;
}

/** node-postgres and Neon pools: `pool.query`, and every client checked out for a transaction. */
export function tracePool<Pool extends { query: Query; connect: Query }>(pool: Pool): Pool {
  traceQueries(pool);
  const connect = pool.connect.bind(pool) as Query;
  pool.connect = ((...args: unknown[]) => {
    // pg-pool's own `query()` checks out with a callback; that query is traced at the pool.
    if (typeof args[0] === "function") return connect(...args);
    return (connect() as Promise<{ query: Query }>).then((client) => traceQueries(client));
  }) as Pool["connect"];
  return pool;
}

/** PGlite: its `query`, and the `query` of each transaction it opens. */
export function tracePglite<Client extends { query: Query; transaction: Query }>(client: Client): Client {
  traceQueries(client);
  const transaction = client.transaction.bind(client) as Query;
  client.transaction = ((work: (tx: { query: Query }) => unknown, ...rest: unknown[]) =>
    transaction((tx: { query: Query }) => work(traceQueries(tx)), ...rest)) as Client["transaction"];
  return client;
}

function statementName(config: unknown): string {
  if (typeof config === "string") return statementSummary(config);
  const named = config as { name?: unknown; text?: unknown } | undefined;
  if (typeof named?.name === "string") return named.name;
  return typeof named?.text === "string" ? statementSummary(named.text) : "SQL";
}
