import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export interface ColdStart {
  /** Spawn to a served `/healthz` of a bare `node:http` server: what Node itself costs on this machine. */
  floorMs: number;
  /** The built service (`node build/functions/node.js`) on an empty data directory (creates the database). */
  firstBootMs: number;
  /** The same data directory again: an ordinary restart. */
  restartMs: number;
  /** The first context request after a restart (the embedding model loads on first use). */
  firstContextMs: number;
  /** Resident memory of the restarted service after its first context request. */
  rssMiB: number;
  /** Then CPU the service used while idle for `IDLE_WINDOW_MS` (all its threads), as a share of one core. */
  idleCpuShare: number;
}

/** How long the restarted service is watched while idle, after its first request has settled. */
const IDLE_WINDOW_MS = 5_000;

// The benchmark runs built (`npm run bench` builds first), beside the service it starts.
const serviceEntry = fileURLToPath(new URL("../functions/node.js", import.meta.url));
const bareServer = `require("node:http").createServer((_, res) => res.end("ok")).listen(Number(process.env.PORT), "127.0.0.1")`;

/**
 * Cold start of the built service, measured from outside as a supervisor sees it: spawn until
 * `/healthz` answers 200. Needs `npm run build` (which `npm ci` runs).
 */
export async function benchColdStart(dataDir: string): Promise<ColdStart> {
  const floorMs = (await startAndStop(["-e", bareServer], {})).servedMs;
  const firstBootMs = (await startAndStop([serviceEntry], { DATA_DIR: dataDir })).servedMs;
  const restart = await startAndStop([serviceEntry], { DATA_DIR: dataDir }, async (base, child) => {
    const started = performance.now();
    const response = await fetch(`${base}/v1/context`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: "cold", query: "what do I like?", max_tokens: 500 }),
    });
    if (response.status !== 200) throw new Error(`first context request answered ${response.status}`);
    await response.arrayBuffer();
    const firstContextMs = performance.now() - started;
    const rssMiB = await residentMiB(child);
    // Work the first request left behind (access recording, metering) settles within a second.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = await cpuNs(child);
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const idleNs = Math.max(0, (await cpuNs(child)) - before);
    return { firstContextMs, rssMiB, idleCpuShare: idleNs / 1e6 / IDLE_WINDOW_MS };
  });
  return { floorMs, firstBootMs, restartMs: restart.servedMs, ...restart.after };
}

async function startAndStop<T = undefined>(
  args: string[],
  env: Record<string, string>,
  after?: (base: string, child: ChildProcess) => Promise<T>,
): Promise<{ servedMs: number; after: T }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    // No balancer in front of it: a stop need not keep the port open (SHUTDOWN_DELAY).
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "error", SHUTDOWN_DELAY: "0s" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`))));
  try {
    const base = `http://127.0.0.1:${port}`;
    await Promise.race([exited, waitForHealthy(`${base}/healthz`)]);
    const servedMs = performance.now() - started;
    return { servedMs, after: (after ? await Promise.race([exited, after(base, child)]) : undefined) as T };
  } finally {
    exited.catch(() => undefined);
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await gone;
  }
}

async function waitForHealthy(url: string): Promise<void> {
  for (;;) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function residentMiB(child: ChildProcess): Promise<number> {
  const status = await readFile(`/proc/${child.pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kib / 1024;
}

/** CPU time of all the process's threads so far, in ns (the first field of each thread's schedstat). */
async function cpuNs(child: ChildProcess): Promise<number> {
  const threads = await readdir(`/proc/${child.pid}/task`);
  const times = await Promise.all(
    threads.map(async (thread) =>
      Number((await readFile(`/proc/${child.pid}/task/${thread}/schedstat`, "utf8").catch(() => "0")).split(" ")[0]),
    ),
  );
  return times.reduce((sum, value) => sum + value, 0);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
