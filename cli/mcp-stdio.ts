import type { Readable, Writable } from "node:stream";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ErrorCode, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Service } from "./service.js";

/** Where the bridge's HTTP leg points; only its path reaches the service (`Service.request` knows the host). */
const MCP_ENDPOINT = new URL("http://mnemo.service/v1/mcp");

/**
 * `mnemo mcp`: the service's MCP endpoint (`POST /v1/mcp`) over stdio, for desktop clients that
 * start their servers as processes. Two SDK transports joined end to end: what the client writes on
 * stdin goes to the endpoint, what the endpoint answers goes to stdout. So the tools, their
 * validation and the key's scoping are exactly the HTTP server's, whether the service is a running
 * server (the one holding DATA_DIR, or MNEMO_URL) or one started in this process. Resolves when the
 * client has closed stdin and every request it wrote before is answered, or at once when `stop`
 * is aborted (a signal).
 *
 * @example
 * await withService((service) => serveMcpOverStdio(service), { pipeline: true });
 */
export async function serveMcpOverStdio(
  service: Pick<Service, "request">,
  stdio: { input: Readable; output: Writable; log: (line: string) => void } = {
    input: process.stdin,
    output: process.stdout,
    log: (line) => process.stderr.write(`${line}\n`),
  },
  stop?: AbortSignal,
): Promise<void> {
  const client = new StdioServerTransport(stdio.input, stdio.output);
  const endpoint = new StreamableHTTPClientTransport(MCP_ENDPOINT, {
    fetch: (url, init) => {
      const target = new URL(url);
      return service.request(`${target.pathname}${target.search}`, init);
    },
  });
  // Requests sent to the endpoint and answers written to the client, until each is done: what the
  // client sent before it closed its input is answered before the bridge closes.
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const drained = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  const closed = new Promise<void>((resolve) => {
    client.onclose = resolve;
    // The client ends the server by closing its stdin (the SDK's transport does not watch for that);
    // requests it wrote before are answered first, with the service's answers.
    stdio.input.once("end", () => void drained().then(() => client.close()));
    // A signal stops at once.
    stop?.addEventListener("abort", () => void client.close(), { once: true });
  });
  endpoint.onmessage = (message) => {
    // Later requests carry the version the two ends agreed on, as a direct HTTP client's would.
    if (isJSONRPCResultResponse(message) && typeof message.result["protocolVersion"] === "string")
      endpoint.setProtocolVersion(message.result["protocolVersion"]);
    track(client.send(message));
  };
  endpoint.onerror = (error) => stdio.log(`mcp: ${error.message}`);
  client.onerror = (error) => stdio.log(`mcp: ${error.message}`);
  client.onmessage = (message: JSONRPCMessage) => {
    track(
      endpoint.send(message).catch((error: unknown) => {
        // The service could not answer (down, refused the key): the client gets an error, not silence.
        if (isJSONRPCRequest(message))
          return client.send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) },
          });
      }),
    );
  };
  await endpoint.start();
  await client.start();
  await closed;
  await endpoint.close();
}
