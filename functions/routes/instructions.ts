import { Hono } from "hono";
import {
  getInstruction,
  InstructionQuerySchema,
  listInstructionVersions,
  PutInstructionSchema,
  putInstruction,
} from "../../src/memory/procedural/instructions.js";
import type { AppEnv } from "../deps.js";
import { validate } from "../middleware/validate.js";
import { instructionJson } from "../serializers.js";

/** Procedural memory: versioned instructions per app. */
export const instructionRoutes = new Hono<AppEnv>()
  .put("/:key", validate("json", PutInstructionSchema), async (c) => {
    const row = await putInstruction(c.var.deps.db, c.req.param("key"), c.req.valid("json"));
    return c.json(instructionJson(row), 201);
  })
  .get("/:key", validate("query", InstructionQuerySchema), async (c) => {
    const query = c.req.valid("query");
    return c.json(instructionJson(await getInstruction(c.var.deps.db, c.req.param("key"), query.app_id, query.version)));
  })
  .get("/:key/versions", validate("query", InstructionQuerySchema.pick({ app_id: true })), async (c) => {
    const rows = await listInstructionVersions(c.var.deps.db, c.req.param("key"), c.req.valid("query").app_id);
    return c.json({ key: c.req.param("key"), versions: rows.map(instructionJson) });
  });
