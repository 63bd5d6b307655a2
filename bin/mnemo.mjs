#!/usr/bin/env node
// `npx mnemo <command>`: runs the built CLI (`npm run build`, which `npm ci` runs through `prepare`).
import { existsSync } from "node:fs";

const main = new URL("../build/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  console.error("mnemo: build/ is missing; run `npm run build` first (or `npm ci`, which builds)");
  process.exit(1);
}
await import(main.href);
