import { Hono } from "hono";
import { html } from "hono/html";

import type { Generated } from "../openapi.js";

type Operation = { summary?: string; security?: unknown[]; requestBody?: unknown; parameters?: unknown };

/**
 * The OpenAPI document (generated from the routes' own definitions) and a reference page rendered
 * from it on the server (no CDN needed).
 *
 * @example
 * app.route("/", docsRoutes((origin) => openApiDocument(app, origin)));
 */
export function docsRoutes(document: (serverUrl?: string) => Generated): Hono {
  return new Hono()
    .get("/openapi.json", (c) => c.json(document(new URL(c.req.url).origin)))
    .get("/docs", (c) => {
      const rows = Object.entries(document().paths ?? {}).flatMap(([path, methods]) =>
        Object.entries((methods ?? {}) as Record<string, Operation>).map(([method, operation]) => {
          const request = operation.requestBody ?? operation.parameters;
          const route = path.replace(/\{(\w+)\}/g, ":$1");
          return html`<section id="${method}-${route}">
            <h3><code class="method">${method.toUpperCase()}</code> <code>${route}</code></h3>
            <p>${operation.summary ?? ""}${operation.security?.length === 0 ? " · no API key" : ""}</p>
            ${request ? html`<details><summary>request</summary><pre>${JSON.stringify(request, null, 2)}</pre></details>` : ""}
          </section>`;
        }),
      );
      return c.html(html`<!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>mnemo-pipeline API</title>
        <style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}.method{font-weight:bold}</style></head>
        <body><h1>mnemo-pipeline API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>Authorization: Bearer &lt;key&gt;</code>.</p>
        ${rows}</body></html>`);
    });
}
