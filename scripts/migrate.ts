import { parseEnv } from "../src/config/env.js";
import { connectDatabase } from "../src/db/connect.js";
import { migrateDatabase } from "../src/db/migrate.js";

const env = parseEnv(process.env);
const handle = await connectDatabase(env);
try {
  await migrateDatabase(handle);
  console.log(`migrations applied (${handle.kind})`);
} finally {
  await handle.close();
}
