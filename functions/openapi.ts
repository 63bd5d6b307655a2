import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";

/** An OpenAPI 3.1 document as zod-openapi generates it. */
export type Generated = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

/**
 * The OpenAPI 3.1 description of an app, generated from its routes' definitions (the zod schemas
 * that validate each request and type each answer). The paths depend only on the schemas, so
 * they are generated once, on first request; `serverUrl` names the server that answers.
 *
 * @example
 * const document = openApiDocument(app);
 * document("https://memory.example.com").paths["/v1/context"];
 */
export function openApiDocument<E extends Env>(app: OpenAPIHono<E>): (serverUrl?: string) => Generated {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "An app's API key (`npx mnemo create-key`)",
  });
  let generated: Generated | undefined;
  return (serverUrl) => {
    generated ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "mnemo-pipeline",
        version: "0.1.0",
        description: "Event-sourced memory for LLM agents: sessions, events, memories, context windows.",
      },
      security: [{ apiKey: [] }],
      tags: [{ name: "sessions" }, { name: "retrieval" }, { name: "memories" }, { name: "entities" }, { name: "operations" }],
    });
    return serverUrl ? { ...generated, servers: [{ url: serverUrl }] } : generated;
  };
}
