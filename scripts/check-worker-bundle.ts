import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { z } from "zod";

/**
 * After `npm run build:worker`: reports the Worker bundle's size by package and fails when a
 * Node-only dependency reached it (the embedded database, the TensorFlow.js embedder, the local
 * executor's croner), when the tokenizer's rank table was bundled instead of served as an asset,
 * or when it outgrows the budget (1 MiB gzipped: what the Worker parses at every cold start).
 */
const FORBIDDEN = ["@electric-sql/pglite", "@energetic-ai", "@tensorflow", "croner", "@hono/node-server"];
/** Bundled, the o200k rank table alone is 1 MB gzipped; the Worker loads it from its static assets. */
const FORBIDDEN_FILES = [/gpt-tokenizer\/esm\/bpeRanks\//];
const GZIP_BUDGET_BYTES = 1024 * 1024;

const MetafileSchema = z.object({
  outputs: z.record(z.string(), z.object({ inputs: z.record(z.string(), z.object({ bytesInOutput: z.number() })).optional() })),
});
const meta = MetafileSchema.parse(JSON.parse(await readFile("dist/worker/meta.json", "utf8")));
const bundle = await readFile("dist/worker/main.js");
const byPackage = new Map<string, number>();
for (const output of Object.values(meta.outputs)) {
  for (const [file, input] of Object.entries(output.inputs ?? {})) {
    const match = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const name = match?.[1] ?? file.split("/")[0] ?? file;
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
  }
}
const gzipped = gzipSync(bundle).length;
console.log(
  `worker bundle: ${(bundle.length / 1024).toFixed(0)} KiB, ${(gzipped / 1024).toFixed(0)} KiB gzipped (budget ${GZIP_BUDGET_BYTES / 1024} KiB)`,
);
for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 8))
  console.log(`  ${name.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB`);
const leaked = [...byPackage.keys()].filter((name) => FORBIDDEN.some((forbidden) => name.startsWith(forbidden)));
if (leaked.length > 0) throw new Error(`Node-only dependencies reached the Worker bundle: ${leaked.join(", ")}`);
const inlined = Object.values(meta.outputs).flatMap((output) =>
  Object.keys(output.inputs ?? {}).filter((file) => FORBIDDEN_FILES.some((pattern) => pattern.test(file))),
);
if (inlined.length > 0) throw new Error(`Files meant for the static assets reached the Worker bundle: ${inlined.join(", ")}`);
if (gzipped > GZIP_BUDGET_BYTES) throw new Error(`Worker bundle is ${gzipped} bytes gzipped, over the ${GZIP_BUDGET_BYTES} budget`);
