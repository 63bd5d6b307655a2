import { fileURLToPath } from "node:url";
import type { DatabaseHandle } from "./database.js";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Applies the committed drizzle migrations that have not run yet; safe to call at every start. */
export async function migrateDatabase(handle: DatabaseHandle, migrationsFolder = MIGRATIONS_FOLDER): Promise<void> {
  const config = { migrationsFolder };
  switch (handle.kind) {
    case "pglite": {
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      return migrate(handle.db as never, config);
    }
    case "pg": {
      const { migrate } = await import("drizzle-orm/node-postgres/migrator");
      return migrate(handle.db as never, config);
    }
    case "neon": {
      const { migrate } = await import("drizzle-orm/neon-serverless/migrator");
      return migrate(handle.db as never, config);
    }
  }
}
