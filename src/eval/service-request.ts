import type { Runtime } from "../../functions/node-runtime.js";

const json = { "content-type": "application/json" };

/**
 * One call of the service's HTTP app in-process, as a client would make it over the network; a
 * status of 300 or more is an error with the answer's text.
 */
export async function serviceRequest(
  runtime: Pick<Runtime, "app">,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown> & { id: string }> {
  const response = await runtime.app.request(path, {
    method,
    headers: json,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown> & { id: string };
}
