import { execFile } from "node:child_process";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { createMemoryClient as CreateMemoryClient } from "../../client/index.js";
import type { Runtime } from "../../functions/node-runtime.js";
import { startTestRuntime } from "../fixtures/runtime.js";

const execute = promisify(execFile);
const repo = resolve(import.meta.dirname, "../..");
// Under the repository so the consumer finds the peer dependency `hono` in its node_modules, as an
// app that installs both would.
const consumer = join(repo, "test-artifacts", "client-package");

// A consumer as a user writes one: strict, library types checked. The @ts-expect-error lines fail
// the check if the package's types degrade to `any` or stop matching the server's schemas.
const consumerSource = `import { createMemoryClient, type MemoryClient } from "@mnemo/client";

export async function remember(fetchImpl: typeof fetch): Promise<string> {
  const memory: MemoryClient = createMemoryClient("http://localhost", { fetch: fetchImpl });
  const created = await memory.v1.sessions.$post({ json: { user_id: "pkg" } });
  if (!created.ok) throw new Error(\`create session: \${created.status}\`);
  const session = await created.json();
  const id: string = session.id;
  // @ts-expect-error user_id is a string in the server's schema
  void memory.v1.sessions.$post({ json: { user_id: 42 } });
  // @ts-expect-error no such route
  void memory.v1.nowhere.$get();
  return id;
}
`;

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
  await rm(consumer, { recursive: true, force: true });
  const installed = join(consumer, "node_modules", "@mnemo", "client");
  await mkdir(installed, { recursive: true });
  // The package exactly as `npm publish` would upload it.
  await execute("npm", ["pack", "--silent", "--pack-destination", consumer], { cwd: join(repo, "client") });
  const tarball = (await readdir(consumer)).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no tarball");
  await execute("tar", ["-xzf", join(consumer, tarball), "--strip-components=1", "-C", installed]);
  await writeFile(join(consumer, "consumer.ts"), consumerSource);
  await writeFile(
    join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        lib: ["es2022", "dom"],
        types: [],
        skipLibCheck: false,
        noEmit: true,
      },
      files: ["consumer.ts"],
    }),
  );
});
afterAll(async () => {
  await runtime.close();
  await rm(consumer, { recursive: true, force: true });
});

describe("the published typed client (@mnemo/client)", () => {
  it("type-checks a strict consumer against its shipped declarations, library types included", async () => {
    const tsc = join(repo, "node_modules", ".bin", "tsc");
    const result = await execute(tsc, ["-p", consumer]).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(result.stdout).toBe("");
  });

  it("drives the API from its built JavaScript", async () => {
    const entry = join(consumer, "node_modules", "@mnemo", "client", "dist", "client", "index.js");
    const { createMemoryClient } = (await import(pathToFileURL(entry).href)) as { createMemoryClient: typeof CreateMemoryClient };
    const inProcess = (input: RequestInfo | URL, init?: RequestInit) =>
      Promise.resolve(runtime.app.request(input instanceof Request ? input : String(input), init));
    const memory = createMemoryClient("http://localhost", { fetch: inProcess as typeof fetch });
    const created = await memory.v1.sessions.$post({ json: { user_id: "pkg" } });
    expect(created.status).toBe(201);
    const listed = await memory.v1.sessions.$get({ query: { user_id: "pkg" } });
    const session = await created.json();
    expect(JSON.stringify(await listed.json())).toContain("id" in session ? session.id : "no session");
  });
});
