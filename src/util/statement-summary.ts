/**
 * A statement reduced to what names it: its verb and the first relation (or function) it touches,
 * e.g. `INSERT session_events`, `SELECT memories`, `SELECT append_events`. String literals are
 * blanked first, so no value ever reaches a log line or a span through this.
 *
 * @example
 * statementSummary('select "id" from "memories" where "user_id" = $1'); // "SELECT memories"
 */
export function statementSummary(text: string): string {
  const bare = text
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/[eE]?'(?:[^'\\]|''|\\.)*'/g, "?")
    .replace(/\$[A-Za-z_]*\$[\s\S]*?\$[A-Za-z_]*\$/g, "?");
  const verb = /^\s*\(?\s*([A-Za-z]+)/.exec(bare)?.[1]?.toUpperCase() ?? "SQL";
  const target =
    /\b(?:into|update|from|join|table|on)\s+((?:"[^"]+"|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|[A-Za-z_][\w$]*))?)/i.exec(bare)?.[1] ??
    (verb === "SELECT" ? /^\s*select\s+([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?)\s*\(/i.exec(bare)?.[1] : undefined);
  return target ? `${verb} ${target.replaceAll('"', "")}` : verb;
}
