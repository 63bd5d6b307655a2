import type { MiddlewareHandler } from "hono";
import { DomainError } from "../../src/errors.js";
import { unstorable } from "../contract/input.js";

/**
 * Refuses, before any route runs, a URL whose path segments or query parameters cannot be decoded
 * or hold what Postgres cannot store (NUL, a lone surrogate): such a value reaching a query would
 * be a 500. The 400 names the segment (`path.2`) or parameter (`query.user_id`).
 */
export function wellFormedUrl(): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const issues: { field: string; message: string }[] = [];
    url.pathname.split("/").forEach((segment, index) => {
      const problem = decodingProblem(segment);
      if (problem) issues.push({ field: `path.${index}`, message: problem });
    });
    for (const pair of url.search.slice(1).split("&")) {
      if (!pair) continue;
      const [rawKey = "", rawValue = ""] = pair.split(/=(.*)/s);
      const keyProblem = decodingProblem(rawKey.replace(/\+/g, " "));
      const name = keyProblem ? rawKey : decodeURIComponent(rawKey.replace(/\+/g, " "));
      const problem = keyProblem ? `parameter name: ${keyProblem}` : decodingProblem(rawValue.replace(/\+/g, " "));
      if (problem) issues.push({ field: `query.${name}`, message: problem });
    }
    const first = issues[0];
    if (first) throw new DomainError("invalid_request", `${first.field}: ${first.message}`, { issues });
    await next();
  };
}

function decodingProblem(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return "malformed percent-encoding (not UTF-8)";
  }
  return unstorable(decoded);
}
