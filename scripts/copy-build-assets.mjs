// After `tsc -p tsconfig.build.json`: the files the built service reads at run time besides its
// modules — migrations, the dashboard's static files, the worker scripts (offline models, the embedded database).
import { cp } from "node:fs/promises";

const copies = [
  ["drizzle", "build/drizzle"],
  ["functions/public", "build/functions/public"],
  ["src/providers/offline/use-worker.mjs", "build/src/providers/offline/use-worker.mjs"],
  ["src/providers/offline/offline-model-worker.mjs", "build/src/providers/offline/offline-model-worker.mjs"],
  ["src/db/pglite-thread/pglite-worker.mjs", "build/src/db/pglite-thread/pglite-worker.mjs"],
];
for (const [from, to] of copies)
  await cp(new URL(`../${from}`, import.meta.url), new URL(`../${to}`, import.meta.url), { recursive: true });
