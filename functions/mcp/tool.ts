import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Principal } from "../../src/auth/api-keys.js";
import type { AppDeps } from "../deps.js";

/** Who calls a tool and with what: the app's dependencies and the caller the API key names. */
export interface ToolCaller {
  deps: AppDeps;
  principal: Principal | undefined;
}

/**
 * One MCP tool. Its `input` is the schema of the REST request it mirrors, so a tool takes what
 * the route takes and is validated once, by the same rules (`contract/input.ts` `parseInput`:
 * storable strings, the schema, the caller's app). The description names fields in backticks and
 * values in double quotes; `test/http/mcp-tools.test.ts` checks each quoted value against the
 * field named last before it, and `example` against the schema.
 */
export interface McpTool<Input extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: Input;
  /** Arguments a caller could send (checked against `input` by the tool test). */
  example: z.input<Input>;
  annotations: ToolAnnotations;
  /** The tool's answer, sent to the client as JSON text (or as-is when a string). */
  run(input: z.output<Input>, caller: ToolCaller): Promise<unknown>;
}

/**
 * Declares a tool with its input schema's types, for the list of tools (`tools/index.ts`).
 *
 * @example
 * export const forgetMemory = defineTool({ name: "forget_memory", input: ForgetSchema, ..., run: async (input, { deps }) => ... });
 */
export function defineTool<Input extends z.ZodType>(tool: McpTool<Input>): McpTool {
  return tool as unknown as McpTool;
}
