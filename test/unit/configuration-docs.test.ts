import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { EnvSchema, parseEnv } from "../../src/config/env.js";

/** The rows of docs/configuration.md's tables: `| \`NAME\` | default | meaning |`. */
async function documentedRows(): Promise<Map<string, string>> {
  const text = await readFile(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const rows = new Map<string, string>();
  // Cells may be padded to line the table up.
  for (const match of text.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|\s*([^|]+?)\s*\|[^|]+\|\s*$/gm)) {
    const [, name, cell] = match as unknown as [string, string, string];
    expect(rows.has(name), `${name} is documented twice`).toBe(false);
    rows.set(name, cell.trim());
  }
  return rows;
}

/** A default as the docs write it: the value in backticks, or "—" when the variable is unset by default. */
function asDocumented(value: unknown): string {
  if (value === undefined) return "—";
  if (value instanceof Set || Array.isArray(value)) return [...value].length === 0 ? "—" : `\`${[...value].join(",")}\``;
  if (typeof value === "object" && value !== null && Object.keys(value).length === 0) return "—";
  return `\`${String(value)}\``;
}

describe("docs/configuration.md", () => {
  it("documents every variable the schema reads, and no other, each with the schema's default", async () => {
    const rows = await documentedRows();
    const variables = Object.keys(EnvSchema.shape).sort();
    expect([...rows.keys()].sort()).toEqual(variables);
    const defaults = parseEnv({}) as Record<string, unknown>;
    for (const name of variables) expect(rows.get(name), name).toBe(asDocumented(defaults[name]));
  });
});
