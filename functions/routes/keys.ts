import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey } from "../../src/auth/api-keys.js";
import { DomainError, notFound } from "../../src/errors.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { apiRoutes, defineRoute, jsonAnswer, jsonBody } from "../contract/define-route.js";
import type { DepsEnv } from "../deps.js";
import { Timestamp, timestamp } from "../json/timestamp.js";

const tags = ["operations"];

export const CreateKeySchema = z.strictObject({
  app_id: ExternalIdSchema.describe("The app the key acts in"),
  name: z.string().trim().min(1).max(100).default("default").describe("A label for listings"),
});
const ListKeysQuerySchema = z.strictObject({ app_id: ExternalIdSchema.optional().describe("Only this app's keys") });
const KeyPath = z.object({ id: z.uuid().describe("The key's id") });

const KeySchema = z.object({
  id: z.uuid(),
  app_id: z.string(),
  name: z.string(),
  prefix: z.string().describe("The public start of the key, to recognise it"),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
});

/**
 * Keys are managed by the operator: the admin key, or anyone while keys are off (a keyless
 * loopback server already answers them everything). An app's own key may not mint or revoke keys.
 */
const operatorOnly: MiddlewareHandler<DepsEnv<"security">> = async (c, next) => {
  const principal = c.get("principal");
  const operator = principal?.kind === "admin" || (principal?.kind === "anonymous" && !c.var.deps.security.authRequired);
  if (!operator) throw new DomainError("forbidden", "managing API keys needs the admin key (ADMIN_API_KEY)");
  await next();
};

const create = defineRoute({
  method: "post",
  path: "/",
  tags,
  summary: "Create an API key for an app: the key is in this answer only (its SHA-256 is stored)",
  middleware: [operatorOnly],
  request: { body: jsonBody(CreateKeySchema) },
  responses: {
    201: jsonAnswer("The key, shown once", KeySchema.extend({ key: z.string().describe("Store it now: it is not shown again") })),
  },
});

const list = defineRoute({
  method: "get",
  path: "/",
  tags,
  summary: "API keys (never the keys themselves), oldest first, revoked ones marked",
  middleware: [operatorOnly],
  request: { query: ListKeysQuerySchema },
  responses: { 200: jsonAnswer("The keys", z.object({ keys: z.array(KeySchema) })) },
});

const revoke = defineRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary: "Revoke an API key: refused from the next request on (at once in this process, within API_KEY_CACHE_SECONDS in others)",
  middleware: [operatorOnly],
  request: { params: KeyPath },
  responses: { 200: jsonAnswer("The key was live and is now revoked", z.object({ id: z.uuid(), revoked: z.literal(true) })) },
});

type KeyRow = Awaited<ReturnType<typeof listApiKeys>>[number];
const keyJson = (row: KeyRow) => ({
  id: row.id,
  app_id: row.appId,
  name: row.name,
  prefix: row.prefix,
  created_at: timestamp(row.createdAt),
  revoked_at: row.revokedAt ? timestamp(row.revokedAt) : null,
});

/** API key management over HTTP, so keys change without stopping the server that holds the embedded database. */
export const keyRoutes = apiRoutes<"db" | "security">()
  .openapi(create, async (c) => {
    const input = c.req.valid("json");
    const created = await createApiKey(c.var.deps.db, { appId: input.app_id, name: input.name });
    const [row] = (await listApiKeys(c.var.deps.db, input.app_id)).filter((key) => key.id === created.id);
    if (!row) throw new Error(`key ${created.id} was not stored`);
    return c.json({ ...keyJson(row), key: created.key }, 201);
  })
  .openapi(list, async (c) => {
    const rows = await listApiKeys(c.var.deps.db, c.req.valid("query").app_id);
    return c.json({ keys: rows.map(keyJson) }, 200);
  })
  .openapi(revoke, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await revokeApiKey(c.var.deps.db, id))) throw notFound("live API key", id);
    c.var.deps.security.resolveKey.forget(id);
    return c.json({ id, revoked: true as const }, 200);
  });
