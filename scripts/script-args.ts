import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * `parseArgs` for a script run by hand: `--help` prints its usage, and an unknown or malformed
 * option ends it with one line naming the option and the usage (exit 2) instead of a stack.
 *
 * @example
 * const { values } = scriptArgs("npm run eval:changes -- [--set FILE]", { options: { set: { type: "string" } } });
 */
export function scriptArgs<T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  const args = config.args ?? process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`usage: ${usage}`);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\nusage: ${usage}`);
    process.exit(2);
  }
}
