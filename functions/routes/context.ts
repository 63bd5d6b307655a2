import { assembleContext, type ContextDeps } from "../../src/context/assemble-context.js";
import { ContextRequestSchema, ContextWindowSchema, memoryIdsIn } from "../../src/context/schemas.js";
import { publishContext } from "../../src/live/context-events.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";

const assemble = defineRoute({
  method: "post",
  path: "/",
  tags: ["retrieval"],
  summary: "Assemble a token-budgeted context window",
  request: { body: jsonBody(ContextRequestSchema) },
  responses: { 200: jsonAnswer("The window: its sections, their items and the rendered prompt", ContextWindowSchema) },
});

/** Token-budgeted context windows for an agent's next turn. */
export const contextRoutes = apiRoutes<keyof ContextDeps | "accessRecorder" | "background" | "live">().openapi(assemble, async (c) => {
  const { accessRecorder, background, live } = c.var.deps;
  const request = c.req.valid("json");
  const window = await assembleContext(c.var.deps, request);
  const ids = memoryIdsIn(window.sections);
  if (ids.length > 0) background.run(c, "record access", () => accessRecorder.record(ids));
  publishContext(live.bus, request, window);
  return c.json(window, 200);
});
