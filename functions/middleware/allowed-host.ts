import type { MiddlewareHandler } from "hono";
import { DomainError } from "../../src/errors.js";

/**
 * Refuses a request for a host this server does not serve, before anything else runs: a web page
 * that rebinds its own name to 127.0.0.1 sends its own name as `Host` (421, misdirected). On the
 * MCP endpoint the `Origin` a browser adds is checked too, as the MCP transport specification asks
 * (403). A request without `Origin` (a non-browser client) passes that second check.
 *
 * @example
 * app.use("*", allowedHost(new Set(["localhost", "127.0.0.1", "[::1]"]), ["/v1/mcp"]));
 */
export function allowedHost(hosts: ReadonlySet<string>, originCheckedPrefixes: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    // In-process requests (`app.request`) carry no Host header: their URL's host is the caller's own.
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    const name = hostNameOf(`http://${host}`);
    if (name === undefined || !hosts.has(name))
      throw new DomainError("misdirected", `this server does not answer to the host ${JSON.stringify(host)}; add it to ALLOWED_HOSTS`, {
        issues: [{ field: "header.host", message: `not one of ${[...hosts].join(", ")}` }],
      });
    const origin = c.req.header("origin");
    if (origin !== undefined && originCheckedPrefixes.some((prefix) => c.req.path.startsWith(prefix))) {
      const originName = hostNameOf(origin);
      if (originName === undefined || !hosts.has(originName))
        throw new DomainError(
          "forbidden",
          `requests from the origin ${JSON.stringify(origin)} are refused; add its host to ALLOWED_HOSTS`,
          {
            issues: [{ field: "header.origin", message: `not one of ${[...hosts].join(", ")}` }],
          },
        );
    }
    await next();
  };
}

/** The lower-case host name of a URL (IPv6 in brackets), without port or trailing dot; undefined when it is no URL. */
function hostNameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, "") || undefined;
  } catch {
    return undefined;
  }
}
