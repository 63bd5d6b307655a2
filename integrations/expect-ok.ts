/**
 * Fails loudly: an adapter must not carry on as if a write had happened. The error names the
 * status and the service's JSON error body (which names the field at fault).
 *
 * @example
 * const response = await expectOk(client.v1.sessions.$post({ json: { user_id: "ana" } }));
 */
export async function expectOk<T extends Response>(pending: Promise<T>): Promise<T> {
  const response = await pending;
  if (!response.ok) throw new Error(`memory service answered ${response.status}: ${await response.clone().text()}`);
  return response;
}

type Answer = { ok: boolean; status: number; json(): Promise<unknown>; text(): Promise<string> };

/**
 * The JSON body of a successful answer of the typed client, typed as the route's success answer;
 * anything else throws like `expectOk`.
 *
 * @example
 * const { id } = await okJson(client.v1.sessions.$post({ json: { user_id: "ana" } }));
 */
export async function okJson<R extends Answer>(pending: Promise<R>): Promise<Awaited<ReturnType<Extract<R, { ok: true }>["json"]>>> {
  const response = await pending;
  if (!response.ok) throw new Error(`memory service answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Awaited<ReturnType<Extract<R, { ok: true }>["json"]>>;
}
