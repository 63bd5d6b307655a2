import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Principal } from "../../src/auth/api-keys.js";
import type { AppDeps } from "../deps.js";

/** Who calls a tool and with what: the dependencies the tool uses (`Needs`), and the caller the API key names. */
export interface ToolCaller<Needs extends keyof AppDeps = keyof AppDeps> {
  deps: Pick<AppDeps, Needs>;
  principal: Principal | undefined;
}

/**
 * One MCP tool. Its `input` is the schema of the REST request it mirrors, so a tool takes what
 * the route takes and is validated once, by the same rules (`contract/input.ts` `parseInput`:
 * storable strings, the schema, the caller's app). The description names fields in backticks and
 * values in double quotes; `test/http/mcp-tools.test.ts` checks each quoted value against the
 * field named last before it, and `example` against the schema. `Needs` are the dependencies its
 * `run` may use, as a route's (`apiRoutes<…>()`).
 */
export interface McpTool<Input extends z.ZodType = z.ZodType, Needs extends keyof AppDeps = keyof AppDeps> {
  name: string;
  title: string;
  description: string;
  input: Input;
  /** Arguments a caller could send (checked against `input` by the tool test). */
  example: z.input<Input>;
  annotations: ToolAnnotations;
  /**
   * The tool's answer, sent to the client as JSON text (or as-is when a string). A property, not a
   * method, so its caller's type is checked contravariantly: a list of tools cannot be handed fewer
   * dependencies than one of them uses.
   */
  run: (input: z.output<Input>, caller: ToolCaller<Needs>) => Promise<unknown>;
}

/** The dependencies a tool (or each of a union of tools) uses. */
export type NeedsOf<Tool> = Tool extends McpTool<z.ZodType, infer Needs> ? Needs : never;

/**
 * Declares a tool that uses the dependencies `Needs`, with its input schema's types, for the list
 * of tools (`tools/index.ts`). Two calls, because `Needs` is given and `Input` inferred.
 *
 * @example
 * export const forgetMemory = defineTool<"db" | "clock">()({ name: "forget_memory", input: ForgetSchema, ..., run: async (input, { deps }) => ... });
 */
export function defineTool<Needs extends keyof AppDeps = never>() {
  return <Input extends z.ZodType>(tool: McpTool<Input, Needs>): McpTool<z.ZodType, Needs> => tool as unknown as McpTool<z.ZodType, Needs>;
}
