import { readFile } from "node:fs/promises";
import semver from "semver";
import { describe, expect, it } from "vitest";

/**
 * Issue 50: `engines` said Node ≥ 22, npm printed seven warning blocks on Node 20, and everything
 * worked on 20. The decision: Node 20 (from 20.19) and later are supported, CI runs the suite on
 * Node 20, and the service's own dependencies are versions that say so, so that `npm ci --omit=dev`
 * on Node 20 warns about nothing. The dev-only AI SDK packages (the adapter's tests) declare ≥ 22:
 * README says so.
 */
interface Lock {
  packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
}
const packageJson = JSON.parse(await readFile("package.json", "utf8")) as { engines: { node: string } };
const lock = JSON.parse(await readFile("package-lock.json", "utf8")) as Lock;
const supported = packageJson.engines.node;

describe("the Node versions the service supports", () => {
  it("include Node 20, and the Node running this suite (CI's)", () => {
    expect(semver.validRange(supported)).not.toBeNull();
    expect(semver.satisfies("20.19.0", supported)).toBe(true);
    expect(semver.satisfies(process.versions.node, supported)).toBe(true);
  });

  it("are supported by every package a production install holds: no EBADENGINE warning, here (CI's Node) or anywhere in range", () => {
    const fits = (range: string) => semver.subset(supported, range) && semver.satisfies(process.versions.node, range);
    const narrower = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== "" && !entry.dev && entry.engines?.node && !fits(entry.engines.node))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, "")} wants node ${entry.engines?.node}`);
    expect(narrower).toEqual([]);
  });

  it("are what the README states", async () => {
    const readme = await readFile("README.md", "utf8");
    expect(readme).toContain(`Node ${semver.minVersion(supported)?.version.replace(/\.0$/, "")} or later`);
  });
});
