// After `tsc -p tsconfig.build.json`: the typed client as a publishable package under client/dist
// (`cd client && npm pack`). Its JavaScript imports only `hono/client`; its declarations inline the
// server's route types and may name a few import-free vocabulary types, which ship beside them.
// Anything else a declaration reaches (drizzle, pg, the server's modules) would leave consumers with
// unresolvable types, so it fails the build instead.
import { cp, mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const build = join(root, "build");
const dist = join(root, "client", "dist");
const allowedPackages = /^hono(\/|$)/;

await rm(dist, { recursive: true, force: true });
const shipped = new Set();
const queue = ["client/index.d.ts"];
while (queue.length > 0) {
  const file = queue.shift();
  if (shipped.has(file)) continue;
  shipped.add(file);
  const text = await readFile(join(build, file), "utf8");
  const specifiers = [...text.matchAll(/(?:from\s+|import\()\s*"([^"]+)"/g)].map((match) => match[1]);
  for (const specifier of specifiers) {
    if (specifier.startsWith(".")) {
      queue.push(relative(build, join(build, dirname(file), specifier.replace(/\.js$/, ".d.ts"))));
    } else if (!allowedPackages.test(specifier)) {
      throw new Error(`${file} refers to "${specifier}": the client package may depend on hono only`);
    }
  }
}
for (const file of [...shipped, "client/index.js"]) {
  await mkdir(dirname(join(dist, file)), { recursive: true });
  await cp(join(build, file), join(dist, file));
}
console.log(`client/dist: ${[...shipped].length + 1} files`);
