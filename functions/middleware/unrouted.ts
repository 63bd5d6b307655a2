import type { Context, NotFoundHandler } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { errorResponse } from "./error-handler.js";

/** A route as Hono lists it (`app.routes`): middleware are registered for every method, as "ALL". */
interface RegisteredRoute {
  method: string;
  path: string;
}

/**
 * What a request no route answered gets: a path the API serves with other methods is 405
 * `method_not_allowed` with an `Allow` header naming them (RFC 9110 §15.5.6), anything else 404
 * `not_found` — both in the API's error shape. The routes are read on the first unrouted request,
 * when the app has all of them.
 *
 * @example
 * app.notFound(answerUnrouted(() => app.routes));
 */
export function answerUnrouted(routes: () => readonly RegisteredRoute[]): NotFoundHandler {
  let allowed: ((path: string) => string[]) | undefined;
  return (c: Context) => {
    allowed ??= allowedMethods(routes());
    const methods = allowed(c.req.path);
    if (methods.length === 0) return errorResponse(c, "not_found", `no route for ${c.req.method} ${c.req.path}`);
    c.header("allow", methods.join(", "));
    return errorResponse(c, "method_not_allowed", `${c.req.method} ${c.req.path}: this path answers ${methods.join(", ")}`);
  };
}

/** The methods each path is served with, as the app's router would match them (its patterns, not its middleware). */
function allowedMethods(routes: readonly RegisteredRoute[]): (path: string) => string[] {
  const router = new TrieRouter<string>();
  // Every endpoint under one lookup key, carrying its method: one match lists them all.
  for (const route of routes) if (route.method !== "ALL") router.add("GET", route.path, route.method);
  return (path) => {
    const methods = new Set(router.match("GET", path)[0].map(([method]) => method));
    // Hono answers HEAD with a GET route.
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}
