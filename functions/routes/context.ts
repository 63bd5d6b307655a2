import { Hono } from "hono";
import { assembleContext } from "../../src/context/assemble-context.js";
import { ContextRequestSchema, memoryIdsIn } from "../../src/context/schemas.js";
import { publishContext } from "../../src/live/context-events.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";

/** Token-budgeted context windows for an agent's next turn (S4). */
export const contextRoutes = new Hono<AppEnv>().post("/", validate("json", ContextRequestSchema), async (c) => {
  const { accessRecorder, background, live } = c.var.deps;
  const request = c.req.valid("json");
  const window = await assembleContext(c.var.deps, request);
  const ids = memoryIdsIn(window.sections);
  if (ids.length > 0) background.run(c, "record access", () => accessRecorder.record(ids));
  publishContext(live.bus, request, window);
  return c.json(window);
});
