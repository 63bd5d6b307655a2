// `prepare` (run by `npm ci` and `npm install`): builds when the dev dependencies are installed. A
// production install (`npm ci --omit=dev`) has no compiler to build with (a typescript that a
// dependency's peer range pulled in is not the dev setup): it keeps the build/ it was shipped with
// (made by `npm run build` where the dev dependencies are) and says so in one line.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

const omitted = (process.env["npm_config_omit"] ?? "").split(/[\s,]+/).includes("dev");
const require = createRequire(import.meta.url);
const hasCompiler = (() => {
  try {
    require.resolve("typescript/package.json");
    return true;
  } catch {
    return false;
  }
})();
if (omitted || !hasCompiler) {
  console.error("prepare: no dev dependencies (npm ci --omit=dev): not building; npm start runs the build/ shipped with this install");
  process.exit(0);
}
execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
