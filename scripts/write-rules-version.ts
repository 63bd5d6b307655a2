import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { offlineRulesVersion, REPOSITORY, RULES_VERSION_FILE, rulesVersionModule } from "./offline-rule-files.js";

/**
 * `npx tsx scripts/write-rules-version.ts`: writes the offline rules' version (a hash of their
 * sources, scripts/offline-rule-files.ts) to src/providers/offline/rules-version.ts. Run it after
 * any change to the rules; their test fails until it is run.
 */
const version = offlineRulesVersion();
writeFileSync(join(REPOSITORY, RULES_VERSION_FILE), rulesVersionModule(version));
console.log(`${RULES_VERSION_FILE}: ${version}`);
