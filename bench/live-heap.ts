import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collect: (() => void) | undefined;

/**
 * The JavaScript heap still in use after a full garbage collection (MiB): what the process keeps,
 * not what merely waits to be collected (which `heapUsed` sampled under load mostly is). The bench
 * runs without `--expose-gc`, so the flag is set at run time and `gc` taken from a fresh context.
 */
export function liveHeapMiB(): number {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
