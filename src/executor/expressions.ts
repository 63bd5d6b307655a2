/**
 * Inngest keys (debounce, concurrency) are CEL expressions. The embedded executor evaluates the
 * forms our functions use — a path such as `event.data.session_id`, or paths and string literals
 * joined with `+` (`event.data.app_id + ":" + event.data.user_id`) — and refuses anything else
 * at registration instead of guessing.
 */
const TERM = /\s*(event(?:\.[A-Za-z_][A-Za-z0-9_]*)+|"[^"\\]*"|'[^'\\]*')\s*(\+|$)/y;

type Term = { path: string[] } | { literal: string };

function parse(expression: string): Term[] | undefined {
  const terms: Term[] = [];
  TERM.lastIndex = 0;
  while (TERM.lastIndex < expression.length) {
    const match = TERM.exec(expression);
    if (!match) return undefined;
    const token = match[1] as string;
    terms.push(token.startsWith("event") ? { path: token.split(".").slice(1) } : { literal: token.slice(1, -1) });
    if (match[2] === "") break;
    // A trailing "+" needs another term after it.
    if (TERM.lastIndex >= expression.length) return undefined;
  }
  return terms.length > 0 && TERM.lastIndex >= expression.length ? terms : undefined;
}

export function assertSupportedKey(expression: string, where: string): void {
  if (!parse(expression.trim())) {
    throw new Error(
      `${where}: the embedded executor supports keys of the form event.data.<field> (optionally joined with + and string literals), not "${expression}"`,
    );
  }
}

export function evaluateKey(expression: string, event: Record<string, unknown>): string {
  const terms = parse(expression.trim());
  if (!terms) throw new Error(`unsupported key expression "${expression}"`);
  return terms
    .map((term) => {
      if ("literal" in term) return term.literal;
      let value: unknown = event;
      for (const part of term.path) value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
      return value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
    })
    .join("");
}
