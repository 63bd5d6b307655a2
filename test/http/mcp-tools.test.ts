import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { McpTool } from "../../functions/mcp/tool.js";
import { memoryTools } from "../../functions/mcp/tools/index.js";

/** The zod internals a walk over a schema needs (zod 4 keeps them on `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
  valueType?: z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schemas directly inside this one: properties, items, union options, what a wrapper wraps. */
function children(schema: z.ZodType): { name?: string; schema: z.ZodType }[] {
  const def = defOf(schema);
  if (def.shape) return Object.entries(def.shape).map(([name, child]) => ({ name, schema: child }));
  const inner = [def.element, def.innerType, def.in, def.valueType, ...(def.options ?? []), def.getter?.()];
  return inner.filter((child): child is z.ZodType => child !== undefined).map((child) => ({ schema: child }));
}

/** Every schema reachable from `schema` (itself included). */
function descendants(schema: z.ZodType, seen = new Set<z.ZodType>()): z.ZodType[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  return [schema, ...children(schema).flatMap((child) => descendants(child.schema, seen))];
}

/** The schemas of every field called `name`, at any depth of the tool's input. */
function fieldsNamed(schema: z.ZodType, name: string): z.ZodType[] {
  return descendants(schema).flatMap((node) =>
    children(node)
      .filter((child) => child.name === name)
      .map((child) => child.schema),
  );
}

/**
 * What a description claims, in the convention of `functions/mcp/tool.ts`: field names in
 * backticks, values in double quotes, each value belonging to the field named last before it.
 */
function claims(description: string): { fields: string[]; values: { field: string | undefined; value: string }[] } {
  const fields: string[] = [];
  const values: { field: string | undefined; value: string }[] = [];
  for (const match of description.matchAll(/`([^`]+)`|"([^"]+)"/g)) {
    if (match[1] !== undefined) fields.push(match[1]);
    else values.push({ field: fields.at(-1), value: match[2] as string });
  }
  return { fields, values };
}

/** The claims of a description that its schema contradicts (empty when the description is true). */
function falseClaims(tool: McpTool, toolNames: string[]): string[] {
  const { fields, values } = claims(tool.description);
  const wrong: string[] = [];
  for (const field of fields)
    if (!toolNames.includes(field) && fieldsNamed(tool.input, field).length === 0) wrong.push(`\`${field}\` is no field of ${tool.name}`);
  for (const { field, value } of values) {
    if (field === undefined) {
      wrong.push(`"${value}" names no field before it`);
      continue;
    }
    // The value fits the field, or something inside it (an array's items, a union's phrase, an object's enum member).
    const accepts = fieldsNamed(tool.input, field)
      .flatMap((schema) => descendants(schema))
      .some((schema) => schema.safeParse(value).success);
    if (!accepts) wrong.push(`"${value}" is not a value of \`${field}\` in ${tool.name}`);
  }
  return wrong;
}

const toolNames = memoryTools.map((tool) => tool.name);

describe("MCP tool definitions", () => {
  it.each(memoryTools.map((tool) => [tool.name, tool] as const))("%s: its description names only what its schema accepts", (_, tool) => {
    expect(claims(tool.description).fields.length).toBeGreaterThan(0);
    expect(falseClaims(tool, toolNames)).toEqual([]);
  });

  it.each(memoryTools.map((tool) => [tool.name, tool] as const))("%s: its example is valid input", (_, tool) => {
    const parsed = tool.input.safeParse(tool.example);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it("catches a description that promises a value the schema rejects", () => {
    const search = memoryTools.find((tool) => tool.name === "search_memory") as McpTool;
    // What the old description said: `last_month` was never a phrase of `time_window`.
    const stale = { ...search, description: 'Time travel: `time_window` (a phrase such as "last_month" or {from, to}); `types`: "trait".' };
    expect(falseClaims(stale, toolNames)).toEqual(['"last_month" is not a value of `time_window` in search_memory']);
    expect(falseClaims({ ...search, description: "`window` narrows them" }, toolNames)).toEqual(["`window` is no field of search_memory"]);
    expect(falseClaims({ ...search, description: '`types`: "memory"' }, toolNames)).toEqual([
      '"memory" is not a value of `types` in search_memory',
    ]);
  });

  it("has one file per tool, named after it, and unique names", async () => {
    expect(new Set(toolNames).size).toBe(toolNames.length);
    const files = (await readdir("functions/mcp/tools")).filter((file) => file !== "index.ts").sort();
    expect(files).toEqual(toolNames.map((name) => `${name.replaceAll("_", "-")}.ts`).sort());
  });
});
