import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Tests that need no database sit beside their module (src/…/foo.test.ts); the rest under test/.
    include: ["test/**/*.test.ts", "{src,functions,inngest,client,cli,integrations,bench,scripts}/**/*.test.ts"],
    // With TEST_DATABASE_URL: one migrated template database per run, copied for every runtime.
    globalSetup: ["test/fixtures/global-setup.ts"],
    // Each file boots its own databases and model; two cores run two files at a time.
    pool: "forks",
    maxWorkers: 2,
    // Limits, not expectations: waits end when their condition holds, so a generous limit costs
    // nothing when things work and keeps a loaded machine (or a second suite beside this one) green.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
