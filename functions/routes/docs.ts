import { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../deps.js";
import { OPERATIONS, openApiDocument } from "../openapi.js";

/** The OpenAPI document and a reference page rendered from it on the server (no CDN needed). */
export const docsRoutes = new Hono<AppEnv>()
  .get("/openapi.json", (c) => c.json(openApiDocument(new URL(c.req.url).origin)))
  .get("/docs", (c) => {
    const document = openApiDocument();
    const rows = OPERATIONS.map((operation) => {
      const entry = (
        document.paths[operation.path.replace(/:(\w+)/g, "{$1}")] as Record<string, { requestBody?: unknown; parameters?: unknown }>
      )[operation.method];
      const request = entry?.requestBody ?? entry?.parameters;
      return html`<section id="${operation.method}-${operation.path}">
        <h3><code class="method">${operation.method.toUpperCase()}</code> <code>${operation.path}</code></h3>
        <p>${operation.summary}${operation.public ? " · no API key" : ""}</p>
        ${request ? html`<details><summary>request</summary><pre>${JSON.stringify(request, null, 2)}</pre></details>` : ""}
      </section>`;
    });
    return c.html(html`<!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>mnemo-pipeline API</title>
      <style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}.method{font-weight:bold}</style></head>
      <body><h1>mnemo-pipeline API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>Authorization: Bearer &lt;key&gt;</code>.</p>
      ${rows}</body></html>`);
  });
