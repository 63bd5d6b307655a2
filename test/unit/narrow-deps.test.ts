import type { Hono } from "hono";
import { describe, expectTypeOf, it } from "vitest";
import { apiRoutes } from "../../functions/contract/define-route.js";
import type { AppDeps } from "../../functions/deps.js";
import { memoryServer } from "../../functions/mcp/memory-server.js";
import { defineTool, type ToolCaller } from "../../functions/mcp/tool.js";
import type { MemoryToolNeeds } from "../../functions/mcp/tools/index.js";
import type { healthRoutes } from "../../functions/routes/health.js";
import type { instructionRoutes } from "../../functions/routes/instructions.js";

/**
 * Issue 50: routes and MCP tools received the whole 30-field `AppDeps`. Each now declares the
 * dependencies it uses (`apiRoutes<…>()`, `defineTool<…>()`), as Hono's middleware declare their
 * variables, and the type checker holds it to them: `npm run typecheck` fails if a line marked
 * `@ts-expect-error` below compiles, so these are the checks (vitest only runs the file).
 */
/** The dependencies a group of routes declared (its Hono env's `deps`). */
type DepsOf<Routes> =
  Routes extends Hono<infer E extends { Variables: { deps: unknown } }, infer _S, infer _B> ? E["Variables"]["deps"] : never;

describe("narrow dependencies", () => {
  it("a route sees only the dependencies it declares", () => {
    apiRoutes<"db">().get("/x", (c) => {
      // @ts-expect-error -- not declared: the route may not use the clock.
      void c.var.deps.clock;
      return c.text(String(Boolean(c.var.deps.db)));
    });
    // The instructions need the database and nothing else; readiness four dependencies.
    expectTypeOf<DepsOf<typeof instructionRoutes>>().toEqualTypeOf<Pick<AppDeps, "db">>();
    expectTypeOf<DepsOf<typeof healthRoutes>>().toEqualTypeOf<Pick<AppDeps, "db" | "dbKind" | "embedder" | "readiness">>();
  });

  it("a tool sees only the dependencies it declares, and the server is handed all the tools need", () => {
    defineTool<"db">()({
      name: "t",
      title: "t",
      description: "t",
      input: {} as never,
      example: {} as never,
      annotations: {},
      run: async (_input, { deps }) => {
        // @ts-expect-error -- not declared: the tool may not use the embedder.
        void deps.embedder;
        return Boolean(deps.db);
      },
    });
    expectTypeOf<MemoryToolNeeds>().toEqualTypeOf<
      "db" | "clock" | "embedder" | "redaction" | "recall" | "ann" | "tokenizer" | "followingTurns" | "neighbourWeight" | "window"
    >();
    const fewer = {} as ToolCaller<"db" | "clock" | "log">;
    // @ts-expect-error -- the tools use more than the database and the clock.
    if (Math.random() > 2) memoryServer(fewer);
  });
});
