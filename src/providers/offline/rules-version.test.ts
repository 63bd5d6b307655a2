import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  offlineRuleFiles,
  offlineRulesVersion,
  REPOSITORY,
  RULES_VERSION_FILE,
  rulesVersionModule,
} from "../../../scripts/offline-rule-files.js";
import { OFFLINE_RULES_VERSION } from "./rules-version.js";

describe("the offline rules' version", () => {
  it("is the hash of the rules' sources as they are now (else: npx tsx scripts/write-rules-version.ts)", () => {
    expect(OFFLINE_RULES_VERSION, "the rules changed: run npx tsx scripts/write-rules-version.ts").toBe(offlineRulesVersion());
    expect(readFileSync(join(REPOSITORY, RULES_VERSION_FILE), "utf8")).toBe(rulesVersionModule(OFFLINE_RULES_VERSION));
  });

  it("covers the modules the reader imports, tagger and word lists included, and nothing of the tests", () => {
    const files = offlineRuleFiles();
    expect(files).toContain("src/providers/offline/rule-extractor.ts");
    expect(files.some((file) => file.startsWith("src/providers/offline/graph/"))).toBe(true);
    expect(files.filter((file) => file.endsWith(".test.ts"))).toEqual([]);
    expect(files).not.toContain(RULES_VERSION_FILE);
  });
});
