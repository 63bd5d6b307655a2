import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/database.js";
import { INTEGER_MAX } from "../../db/schema/columns.js";
import { instructions } from "../../db/schema/index.js";
import { notFound } from "../../errors.js";
import { ExternalIdSchema } from "../../vocabulary/external-id.js";

export type InstructionRow = typeof instructions.$inferSelect;

export const PutInstructionSchema = z.strictObject({
  app_id: ExternalIdSchema.default("default"),
  content: z.string().min(1).max(100_000),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type PutInstruction = z.infer<typeof PutInstructionSchema>;

export const InstructionQuerySchema = z.strictObject({
  app_id: ExternalIdSchema.default("default"),
  version: z.coerce.number().int().min(1).max(INTEGER_MAX).optional(),
});

const KeySchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,120}$/);

function assertKey(key: string): void {
  if (!KeySchema.safeParse(key).success) throw notFound("instruction", key);
}

/**
 * Procedural memory: each write adds the next version of the app's instruction. The version
 * is computed in the INSERT itself, and the primary key makes a concurrent writer fail rather
 * than overwrite.
 */
export async function putInstruction(db: Database, key: string, input: PutInstruction): Promise<InstructionRow> {
  assertKey(key);
  const [row] = await db
    .insert(instructions)
    .values({
      appId: input.app_id,
      key,
      content: input.content,
      metadata: input.metadata,
      version: sql`(SELECT coalesce(max(version), 0) + 1 FROM instructions WHERE app_id = ${input.app_id} AND key = ${key})`,
    })
    .returning();
  if (!row) throw new Error("insert into instructions returned no row");
  return row;
}

export async function getInstruction(db: Database, key: string, appId: string, version?: number): Promise<InstructionRow> {
  assertKey(key);
  const conditions = [eq(instructions.appId, appId), eq(instructions.key, key), ...(version ? [eq(instructions.version, version)] : [])];
  const [row] = await db
    .select()
    .from(instructions)
    .where(and(...conditions))
    .orderBy(desc(instructions.version))
    .limit(1);
  if (!row) throw notFound("instruction", version ? `${key} version ${version}` : key);
  return row;
}

export async function listInstructionVersions(db: Database, key: string, appId: string): Promise<InstructionRow[]> {
  assertKey(key);
  const rows = await db
    .select()
    .from(instructions)
    .where(and(eq(instructions.appId, appId), eq(instructions.key, key)))
    .orderBy(desc(instructions.version));
  if (rows.length === 0) throw notFound("instruction", key);
  return rows;
}
