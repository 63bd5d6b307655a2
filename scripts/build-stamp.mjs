// Whether build/ was made from today's sources, so the test suite's setup rebuilds only when it was
// not (a build costs tens of seconds before the first test; most runs change no built file).
//
//   node scripts/build-stamp.mjs begin   before `npm run build`: records the sources' fingerprint as pending
//   node scripts/build-stamp.mjs end     after a successful build: the pending fingerprint becomes the stamp
//   node scripts/build-stamp.mjs check   exit 0 when the stamp matches the sources now, 1 otherwise
//
// The fingerprint is a SHA-256 over the path and content of every file the build reads (the folders
// tsconfig.build.json includes, the assets copied beside the modules, the compiler settings and the
// lock file), tests (`*.test.ts`) left out, as the build leaves them out. It is taken before the
// build starts, so a file saved while the compiler runs makes the next check fail, and a failed
// build leaves no stamp at all. Contents, not times: a checkout that rewrites files unchanged keeps
// the build; a deleted file changes the list.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** What `npm run build` reads, relative to the project root: folders (recursively) and files. */
export const BUILD_INPUTS = [
  "functions",
  "src",
  "inngest",
  "client",
  "cli",
  "integrations",
  "bench",
  "drizzle",
  "scripts/eval-locomo.ts",
  "scripts/copy-build-assets.mjs",
  "scripts/assemble-client-package.mjs",
  "scripts/build-stamp.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "package-lock.json",
];

/** Never inputs: tests (not built), installed packages, and the client package the build itself writes. */
const SKIPPED = /(^|\/)(node_modules|dist)(\/|$)|\.test\.ts$/;

const STAMP = join("build", ".build-stamp");
const PENDING = join("build", ".build-stamp.pending");

/**
 * The fingerprint of the build's inputs under `root`.
 *
 * @example
 * const now = await fingerprint(process.cwd()); // "3f1c…" (64 hex digits)
 */
export async function fingerprint(root) {
  const files = [];
  for (const input of BUILD_INPUTS) {
    const path = join(root, input);
    const entries = await readdir(path, { recursive: true, withFileTypes: true }).catch((error) => {
      if (error.code === "ENOTDIR") return [{ isFile: () => true, parentPath: root, name: input }];
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const name = relative(root, join(entry.parentPath, entry.name)).split(sep).join("/");
      if (!SKIPPED.test(name)) files.push(name);
    }
  }
  const hash = createHash("sha256");
  for (const name of files.sort()) {
    hash.update(`${name}\u0000`);
    hash.update(await readFile(join(root, name)));
    hash.update("\u0000");
  }
  return hash.digest("hex");
}

/** True when `root`'s build/ was made from the sources as they are now. */
export async function isBuildCurrent(root) {
  const stamp = await readFile(join(root, STAMP), "utf8").catch(() => undefined);
  return stamp !== undefined && stamp.trim() === (await fingerprint(root));
}

async function begin(root) {
  await mkdir(join(root, "build"), { recursive: true });
  await rm(join(root, STAMP), { force: true });
  await writeFile(join(root, PENDING), `${await fingerprint(root)}\n`);
}

async function end(root) {
  await rename(join(root, PENDING), join(root, STAMP));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.cwd();
  const command = process.argv[2];
  if (command === "begin") await begin(root);
  else if (command === "end") await end(root);
  else if (command === "check") process.exitCode = (await isBuildCurrent(root)) ? 0 : 1;
  else {
    console.error("usage: node scripts/build-stamp.mjs begin | end | check");
    process.exitCode = 2;
  }
}
