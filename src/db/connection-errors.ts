/**
 * Whether an error means the database could not be reached or dropped the connection, as opposed
 * to a bad statement: the request may succeed if sent again, so it is answered 503 with
 * `retry-after` instead of 500. Drivers wrap errors (drizzle's `DrizzleQueryError`, pg's
 * `DatabaseError`), so the whole `cause` chain is inspected.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, message } of causeChain(error)) {
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/**
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (administrator / crash shutdown, cannot
 * connect now: a restart or failover), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
]);

/** What node-postgres (and Neon's pg-based driver) say when a connection died or never came. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Cannot use a pool after calling end/i,
  /WebSocket (was )?closed/i,
];

/**
 * Whether a transaction lost a lock conflict that running it again resolves: a deadlock (40P01,
 * Postgres aborts one side) or a serialization failure (40001). Multi-row writers that cannot take
 * rows in one order (the access recorder's batched UPDATE, a redaction's deletes) meet this under load.
 */
export function isTransactionConflict(error: unknown): boolean {
  return [...causeChain(error)].some(({ code }) => code === "40P01" || code === "40001");
}

/** An error and its `cause`s (drivers wrap: drizzle's `DrizzleQueryError` around pg's `DatabaseError`), at most 8 deep. */
function* causeChain(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (
    let current: unknown = error, depth = 0;
    current && typeof current === "object" && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    yield current as { code?: unknown; message?: unknown };
  }
}

/** Runs `work` (one whole transaction) again when it lost a lock conflict, up to `attempts` times. */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
    }
  }
}

/** Why a connection could not be made, in words for an operator, from the first cause that says. */
const CONNECTION_CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused: nothing listens there",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset",
  "28P01": "password authentication failed",
  "28000": "the server refused this role or client (pg_hba.conf)",
  "3D000": "the database does not exist",
  "53300": "too many connections",
  "57P01": "the server ended the connection (administrator command)",
  "57P02": "the database stopped (crash shutdown; embedded: its thread is gone, restart the service)",
  "57P03": "the server is starting up or shutting down",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed (sslmode, or its CA in sslrootcert)",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chain is not trusted (sslmode, or its CA in sslrootcert)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate cannot be verified (sslmode, or its CA in sslrootcert)",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate names another host",
};

/**
 * What drivers say without a code, each with its cause in words. node-postgres wraps the socket's
 * end in its own message: no answer within `connectionTimeoutMillis` (a host that drops the
 * packets, or a server that takes the connection and sends nothing) is "Connection terminated due
 * to connection timeout" (its cause: "Connection terminated unexpectedly"); a pool that found no
 * free connection in time says "timeout exceeded when trying to connect".
 */
const CONNECTION_MESSAGES: [RegExp, string][] = [
  [/Connection terminated due to connection timeout/i, "timed out connecting: no answer within DATABASE_CONNECT_TIMEOUT"],
  [/timeout exceeded when trying to connect/i, "timed out connecting (DATABASE_CONNECT_TIMEOUT)"],
  [/Connection terminated unexpectedly/i, "the connection closed before the server answered (is PostgreSQL listening there?)"],
  [/does not support SSL connections/i, "the server does not accept TLS (sslmode in DATABASE_URL)"],
  [/WebSocket (was )?closed/i, "the WebSocket to the database closed (Neon, or its proxy)"],
];

/**
 * One line saying why the database could not be reached: a cause an operator can act on and its
 * code (`connection refused: nothing listens there (ECONNREFUSED)`, `password authentication
 * failed (28P01)`), or the words for what a driver said without a code (a connect timeout). The
 * messages of unknown errors are not repeated: a driver's may quote a statement.
 *
 * @example
 * describeConnectionFailure(new Error("Connection terminated due to connection timeout"));
 * // "timed out connecting: no answer within DATABASE_CONNECT_TIMEOUT"
 */
export function describeConnectionFailure(error: unknown): string {
  for (const { code, message } of causeChain(error)) {
    if (typeof code === "string" && CONNECTION_CAUSES[code]) return `${CONNECTION_CAUSES[code]} (${code})`;
    const known = typeof message === "string" ? CONNECTION_MESSAGES.find(([pattern]) => pattern.test(message)) : undefined;
    if (known) return known[1];
  }
  for (const { code } of causeChain(error)) if (typeof code === "string") return `failed (${code})`;
  return "failed";
}
