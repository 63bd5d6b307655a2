import { describe, expect, it } from "vitest";
import { describeConnectionFailure } from "./connection-errors.js";

/** An error as drivers build them: a message, maybe a code, maybe a cause (drizzle wraps pg's). */
const failure = (message: string, fields: { code?: string; cause?: unknown } = {}) =>
  Object.assign(new Error(message, fields.cause ? { cause: fields.cause } : undefined), fields.code ? { code: fields.code } : {});

describe("describeConnectionFailure", () => {
  it.each([
    [
      "a server that takes the connection and never answers (pg, under drizzle)",
      failure("Failed query: SELECT 1", {
        cause: failure("Connection terminated due to connection timeout", { cause: failure("Connection terminated unexpectedly") }),
      }),
      "timed out connecting: no answer within DATABASE_CONNECT_TIMEOUT",
    ],
    [
      "a pool that found no connection in time",
      failure("timeout exceeded when trying to connect"),
      "timed out connecting (DATABASE_CONNECT_TIMEOUT)",
    ],
    [
      "a peer that closes at once",
      failure("Connection terminated unexpectedly"),
      "the connection closed before the server answered (is PostgreSQL listening there?)",
    ],
    [
      "TLS asked of a server without it",
      failure("The server does not support SSL connections"),
      "the server does not accept TLS (sslmode in DATABASE_URL)",
    ],
    [
      "a self-signed certificate",
      failure("self-signed certificate", { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }),
      "the server's TLS certificate is self-signed (sslmode, or its CA in sslrootcert) (DEPTH_ZERO_SELF_SIGNED_CERT)",
    ],
    [
      "a refused connection",
      failure("connect ECONNREFUSED", { code: "ECONNREFUSED" }),
      "connection refused: nothing listens there (ECONNREFUSED)",
    ],
    [
      "a code first, whatever the words below",
      failure("x", { code: "28P01", cause: failure("Connection terminated unexpectedly") }),
      "password authentication failed (28P01)",
    ],
  ])("%s", (_name, error, line) => {
    expect(describeConnectionFailure(error)).toBe(line);
  });

  it("repeats no unknown message (it may quote a statement), only its code", () => {
    expect(describeConnectionFailure(failure("relation users does not exist: SELECT secret", { code: "42P01" }))).toBe("failed (42P01)");
    expect(describeConnectionFailure(failure("something odd with SELECT secret"))).toBe("failed");
  });
});
