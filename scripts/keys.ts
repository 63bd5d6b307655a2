import { parseArgs } from "node:util";
import { createApiKey, listApiKeys, revokeApiKey } from "../src/auth/api-keys.js";
import { parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { migrateDatabase } from "../src/db/migrate.js";

const USAGE = `usage:
  npm run keys -- create --app <app_id> [--name <label>]   prints the new key once
  npm run keys -- list [--app <app_id>]
  npm run keys -- revoke <key_id>`;

/** API keys per app (stored hashed), against the configured database (DATA_DIR or DATABASE_URL). */
const { values, positionals } = parseArgs({ allowPositionals: true, options: { app: { type: "string" }, name: { type: "string", default: "default" } } });
const [command, argument] = positionals;
const database = await connectDatabase(parseEnv(process.env));
try {
  if (database.kind === "pglite") await migrateDatabase(database);
  if (command === "create" && values.app) {
    const created = await createApiKey(database.db, { appId: values.app, name: values.name as string });
    console.log(`created key ${created.id} for app "${values.app}". Store it now; it is not shown again:\n${created.key}`);
  } else if (command === "list") {
    for (const key of await listApiKeys(database.db, values.app)) {
      console.log(`${key.id}  ${key.appId}  ${key.name}  ${key.prefix}…  created ${key.createdAt.toISOString()}${key.revokedAt ? `  revoked ${key.revokedAt.toISOString()}` : ""}`);
    }
  } else if (command === "revoke" && argument) {
    console.log((await revokeApiKey(database.db, argument)) ? `revoked ${argument}` : `no live key ${argument}`);
  } else {
    console.error(USAGE);
    process.exitCode = 2;
  }
} finally {
  await database.close();
}
