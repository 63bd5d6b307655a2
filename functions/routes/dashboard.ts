import { readFile } from "node:fs/promises";
import { Hono } from "hono";
import { html, raw } from "hono/html";
import type { AppEnv } from "../deps.js";

export interface DashboardSettings {
  lambda: number;
  threshold: number;
  /** The browser code (functions/dashboard/dashboard.js). */
  script: string;
}

/** Node reads the browser code from disk; a Worker has no files, so it serves no dashboard. */
export async function loadDashboard(decay: { lambda: number; threshold: number }): Promise<DashboardSettings> {
  return { ...decay, script: await readFile(new URL("../dashboard/dashboard.js", import.meta.url), "utf8") };
}

/**
 * `/dashboard?user_id=…`: memory health, retention histogram and decay curve, pipeline runs
 * with their steps and errors, a memory's history and sources, and a context-window inspector.
 * The page only calls the public API (with the key the user enters), so it shows exactly what a
 * key may see.
 */
export function dashboardRoutes(decay: DashboardSettings) {
  return new Hono<AppEnv>().get("/dashboard", (c) =>
    c.html(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mnemo · memory dashboard</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}header{background:#1d2433;color:#fff;padding:.8rem 1.2rem}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:1rem;padding:1rem}section{background:#fff;border-radius:8px;padding:1rem;box-shadow:0 1px 2px #0002}
.cards{display:flex;flex-wrap:wrap;gap:.5rem}.card{border:1px solid #dde;border-radius:6px;padding:.4rem .7rem;min-width:6rem}.card b{display:block;font-size:1.4rem}
.chart{width:100%;max-width:440px}.bar{fill:#4c7bd9}.curve{stroke-width:2}.curve-0{stroke:#d94c4c}.curve-1{stroke:#d9a84c}.curve-2{stroke:#4cd97b}.threshold{stroke:#555;stroke-dasharray:4}
table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{overflow-wrap:anywhere;border-bottom:1px solid #eee;padding:.25rem;text-align:left;vertical-align:top}.failed{color:#b00}#error{color:#b00}
</style></head>
<body data-lambda="${decay.lambda}" data-threshold="${decay.threshold}">
<header><form id="settings">mnemo · memory of <input id="user" placeholder="user id" required> key <input id="key" type="password" placeholder="API key (optional on localhost)"> <button>Show</button></form><p id="error"></p></header>
<main>
<section><h2>Memory health</h2><div id="health"></div></section>
<section><h2>Retention</h2><div id="histogram"></div><h3>Decay curve</h3><div id="curve"></div></section>
<section><h2>Pipeline</h2><div id="parked"></div><div id="jobs"></div><h3>Runs and steps</h3><div id="runs"></div></section>
<section><h2>Memories</h2><ul id="memories"></ul><div id="memory"></div></section>
<section><h2>Context inspector</h2><form id="context-form"><input id="query" placeholder="the next user message" required> <input id="max-tokens" type="number" value="800" min="50"> <button>Assemble</button></form><div id="inspector"></div></section>
</main>
<script type="module">${raw(decay.script)}</script>
</body></html>`),
  );
}
