import { z } from "zod";
import {
  getInstruction,
  InstructionQuerySchema,
  listInstructionVersions,
  PutInstructionSchema,
  putInstruction,
} from "../../src/memory/procedural/instructions.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";
import { InstructionSchema, instructionJson } from "../json/instruction.js";

const KeyPath = z.object({ key: z.string().describe("The instruction's key (letters, digits, `_ . : -`; at most 120)") });
const tags = ["memories"];

const put = defineRoute({
  method: "put",
  path: "/{key}",
  tags,
  summary: "Add the next version of a procedural instruction",
  request: { params: KeyPath, body: jsonBody(PutInstructionSchema) },
  responses: { 201: jsonAnswer("The version written", InstructionSchema) },
});

const get = defineRoute({
  method: "get",
  path: "/{key}",
  tags,
  summary: "The latest or a given version of an instruction",
  request: { params: KeyPath, query: InstructionQuerySchema },
  responses: { 200: jsonAnswer("The version", InstructionSchema) },
});

const versions = defineRoute({
  method: "get",
  path: "/{key}/versions",
  tags,
  summary: "All versions of an instruction",
  request: { params: KeyPath, query: InstructionQuerySchema.pick({ app_id: true }) },
  responses: { 200: jsonAnswer("Every version, oldest first", z.object({ key: z.string(), versions: z.array(InstructionSchema) })) },
});

/** Procedural memory: versioned instructions per app. */
export const instructionRoutes = apiRoutes<"db">()
  .openapi(put, async (c) => {
    const row = await putInstruction(c.var.deps.db, c.req.valid("param").key, c.req.valid("json"));
    return c.json(instructionJson(row), 201);
  })
  .openapi(get, async (c) => {
    const query = c.req.valid("query");
    return c.json(instructionJson(await getInstruction(c.var.deps.db, c.req.valid("param").key, query.app_id, query.version)), 200);
  })
  .openapi(versions, async (c) => {
    const { key } = c.req.valid("param");
    const rows = await listInstructionVersions(c.var.deps.db, key, c.req.valid("query").app_id);
    return c.json({ key, versions: rows.map(instructionJson) }, 200);
  });
