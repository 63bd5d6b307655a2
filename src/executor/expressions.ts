/**
 * Inngest keys (debounce, concurrency) are CEL expressions. The embedded executor evaluates the
 * form our functions use, a path such as `event.data.session_id`, and refuses anything else at
 * registration instead of guessing.
 */
const PATH = /^event(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

export function assertSupportedKey(expression: string, where: string): void {
  if (!PATH.test(expression.trim())) {
    throw new Error(`${where}: the embedded executor supports keys of the form event.data.<field>, not "${expression}"`);
  }
}

export function evaluateKey(expression: string, event: Record<string, unknown>): string {
  let value: unknown = { event };
  for (const part of expression.trim().split(".")) {
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
}
