import { writeFile } from "node:fs/promises";
import { startRuntime } from "../functions/node-runtime.js";
import { parseEnv } from "../src/config/env.js";
import { renderApiReference } from "./render-api-reference.js";

/**
 * `npm run docs:api`: writes docs/api.md from the running app's /openapi.json (the routes'
 * own definitions), so the reference cannot drift from the code; test/http/contract.test.ts
 * fails when the file is stale.
 */
const runtime = await startRuntime(parseEnv({ DATA_DIR: "memory://", EXECUTOR_ENABLED: "false", LOG_LEVEL: "silent" }));
try {
  const document = await (await runtime.app.request("/openapi.json")).json();
  await writeFile(new URL("../docs/api.md", import.meta.url), renderApiReference(document));
} finally {
  await runtime.close();
}
