import { readFile } from "node:fs/promises";
import { Hono } from "hono";
import type { DashboardFiles } from "../deps.js";
import { DASHBOARD_HEADERS } from "./dashboard-headers.js";

/** Node reads them from disk; a Worker serves the same files as static assets and never reaches this route. */
export async function loadDashboard(): Promise<DashboardFiles> {
  const read = (name: string) => readFile(new URL(`../public/${name}`, import.meta.url), "utf8");
  const [page, script] = await Promise.all([read("dashboard.html"), read("dashboard.js")]);
  return { page, script };
}

/**
 * `/dashboard?user_id=…`: memory health, retention histogram and decay curve, pipeline runs
 * with their steps and errors, a memory's history and sources, and a context-window inspector.
 * The page only calls the public API (with the key the user enters, kept in the browser's storage
 * and sent as a header, never in a URL), so it shows exactly what a key may see.
 */
export function dashboardRoutes(files: DashboardFiles) {
  return new Hono()
    .get("/dashboard", (c) => c.html(files.page, 200, DASHBOARD_HEADERS))
    .get("/dashboard.js", (c) => c.body(files.script, 200, { ...DASHBOARD_HEADERS, "content-type": "text/javascript; charset=utf-8" }));
}
