import { type Runtime, startRuntime } from "../functions/node-runtime.js";
import { type Env, parseEnv } from "../src/config/env.js";
import { chooseDriver } from "../src/db/connect.js";
import { DataDirInUseError, dataDirHolder } from "../src/db/data-dir-lock.js";

/** What CLI commands send their work to: the HTTP API of a running server, or one started in this process. */
export interface Service {
  /** Like `app.request`: a path of the API and a request init. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Present when the service runs in this process (direct database access for maintenance). */
  runtime: Runtime | undefined;
  /** Where the work goes, for the user: "http://…" or "in-process". */
  where: string;
  close(): Promise<void>;
}

/**
 * The service a CLI command should use. PGlite is one process's database, so when a server
 * already holds `DATA_DIR` (its lock file names its URL) the command talks to that server over
 * HTTP instead of opening the files — a second process would write data the server never sees.
 * `MNEMO_URL` sends the work to any server explicitly. Otherwise the service runs in this
 * process, with the pipeline executor only when the command waits for the pipeline.
 */
export async function openService(options: { pipeline: boolean }): Promise<Service> {
  const env = parseEnv(process.env);
  const apiKey = process.env["MNEMO_API_KEY"] || env.ADMIN_API_KEY;
  const url = process.env["MNEMO_URL"] || (await runningServer(env));
  if (url) return remoteService(url, apiKey);
  const runtime = await startRuntime(
    parseEnv({
      ...process.env,
      EXECUTOR_ENABLED: options.pipeline ? "true" : "false",
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "0",
    }),
  );
  return {
    // The same key as a server would be sent: a key of one app scopes the work to that app here too.
    request: async (path, init) => runtime.app.request(path, withKey(init, apiKey)),
    runtime,
    where: "in-process",
    close: () => runtime.close(),
  };
}

/**
 * The running server a command should send its work to (`MNEMO_URL`, or the holder of `DATA_DIR`),
 * or undefined when there is none and the command may open the database itself.
 */
export async function runningService(): Promise<Service | undefined> {
  const env = parseEnv(process.env);
  const url = process.env["MNEMO_URL"] || (await runningServer(env));
  return url ? remoteService(url, process.env["MNEMO_API_KEY"] || env.ADMIN_API_KEY) : undefined;
}

/** The URL of the server holding the embedded data directory; refuses when its holder serves nothing. */
async function runningServer(env: Env): Promise<string | undefined> {
  if (chooseDriver({ url: env.DATABASE_URL, driver: env.DATABASE_DRIVER }) !== "pglite" || env.DATA_DIR.startsWith("memory://"))
    return undefined;
  const holder = await dataDirHolder(env.DATA_DIR);
  if (!holder) return undefined;
  if (!holder.url) throw new DataDirInUseError(env.DATA_DIR, holder);
  return holder.url;
}

function remoteService(base: string, apiKey: string | undefined): Service {
  process.stderr.write(`using the server at ${base}\n`);
  return {
    request: (path, init) => fetch(new URL(path, base), withKey(init, apiKey)),
    runtime: undefined,
    where: base,
    close: async () => undefined,
  };
}

function withKey(init: RequestInit = {}, apiKey: string | undefined): RequestInit {
  if (!apiKey) return init;
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${apiKey}`);
  return { ...init, headers };
}

/**
 * A failure a command reports in one line, without a stack trace: input it cannot read, or a
 * request the service refused. Anything else is a fault of ours and keeps its stack (`main.ts`).
 */
export class CommandError extends Error {
  override readonly name = "CommandError";
}

/** A JSON request that must succeed; the error (a `CommandError`) names the path and what the server said. */
export async function requestJson<T = Record<string, unknown>>(
  service: Pick<Service, "request">,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await service.request(path, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new CommandError(`${method} ${path.split("?")[0]}: ${response.status} ${refusal(text)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** The API's error body in one line: `invalid_request: … (body.events.0.role: …)`; any other body, its first 300 characters. */
function refusal(text: string): string {
  try {
    const { error } = JSON.parse(text) as {
      error?: { code?: string; message?: string; details?: { issues?: { field: string; message: string }[] } };
    };
    if (error?.code) {
      const fields = (error.details?.issues ?? []).map((issue) => `${issue.field}: ${issue.message}`).join("; ");
      return `${error.code}: ${error.message ?? ""}${fields ? ` (${fields})` : ""}`;
    }
  } catch {
    // Not the API's JSON (a proxy's page): said as it came, on one line.
  }
  return text.replace(/\s+/g, " ").slice(0, 300);
}
