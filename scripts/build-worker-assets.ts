import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import { DASHBOARD_HEADERS } from "../functions/routes/dashboard-headers.js";
import { TOKENIZER_ASSET_PATH } from "../functions/worker/tokenizer-asset.js";

/**
 * The Worker's static assets (wrangler.toml `[assets]`, built by wrangler's `[build]` step): the
 * dashboard's two files, served before the Worker runs, and o200k_base's rank table, which the
 * Worker loads once per isolate instead of bundling it.
 */
const OUT = new URL("../dist/worker-assets/", import.meta.url);
await rm(OUT, { recursive: true, force: true });
await mkdir(new URL(`.${TOKENIZER_ASSET_PATH.slice(0, TOKENIZER_ASSET_PATH.lastIndexOf("/"))}/`, OUT), { recursive: true });
for (const name of ["dashboard.html", "dashboard.js"])
  await copyFile(new URL(`../functions/public/${name}`, import.meta.url), new URL(name, OUT));
await writeFile(new URL(`.${TOKENIZER_ASSET_PATH}`, OUT), JSON.stringify(ranks));
// The asset server's own header rules: the dashboard's CSP and framing policy, as Node serves them.
const headerLines = Object.entries(DASHBOARD_HEADERS).map(([name, value]) => `  ${name}: ${value}`);
await writeFile(new URL("_headers", OUT), ["/dashboard", ...headerLines, "/dashboard.js", ...headerLines, ""].join("\n"));
console.log(`worker assets: ${OUT.pathname}`);
