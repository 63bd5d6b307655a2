/**
 * The house's layers (docs/ARCHITECTURE.md): imports point down only, never in a circle. Checked
 * by `npm run lint` (and so by CI) with dependency-cruiser over the source; tests (test/, and
 * foo.test.ts beside its module) may import anything. A folder may import its own layer and
 * every layer below it.
 */
const LAYERS = [
  { name: "tools and entries", paths: ["cli", "bench", "scripts", "integrations", "client", "examples", "src/eval"] },
  { name: "HTTP and the composition root", paths: ["functions", "src/config"] },
  { name: "durable functions", paths: ["inngest"] },
  { name: "use cases", paths: ["src/pipeline", "src/context", "src/users", "src/live", "src/usage"] },
  { name: "domain", paths: ["src/memory", "src/sessions", "src/redaction", "src/auth"] },
  { name: "infrastructure", paths: ["src/db", "src/providers", "src/executor", "src/telemetry"] },
  { name: "base", paths: ["src/util", "src/errors.ts", "src/vocabulary"] },
];

/**
 * Violations still in the tree, each exempted as one import (a file → a folder or file), never as
 * a whole rule: `{ rule, file, to, owner }`. Empty: the tree has none, and a new one fails the lint.
 */
const KNOWN_VIOLATIONS = [];

const dotted = (path) => path.replace(/[.]/g, "[.]");
/** A regular expression for files under these folders (or these files). */
const under = (paths) => `^(${paths.map((path) => (/[.][a-z]+$/.test(path) ? `${dotted(path)}$` : `${dotted(path)}/`)).join("|")})`;

/**
 * `rule` with its known violations exempted: their files are left out of it, and each gets the
 * rule again without its one known target (a circle's files are left out of the circle rule).
 */
function exemptingKnown(rule) {
  const known = KNOWN_VIOLATIONS.filter(
    (violation) => violation.rule === rule.name && new RegExp(rule.from.path ?? ".").test(violation.file),
  );
  if (known.length === 0) return [rule];
  const files = known.map((violation) => `^${dotted(violation.file)}$`);
  return [
    { ...rule, from: { ...rule.from, pathNot: files } },
    ...known
      .filter((violation) => violation.to)
      .map((violation) => ({
        ...rule,
        from: { path: `^${dotted(violation.file)}$` },
        to: { ...rule.to, pathNot: under([violation.to.replace(/[/]$/, "")]) },
      })),
  ];
}

/** For each layer but the top one: its files import nothing of the layers above it. */
const upward = LAYERS.slice(1).map((layer, index) => ({
  name: "no-upward",
  comment: `${layer.name} imports nothing of the layers above it (${LAYERS.slice(0, index + 1)
    .map((above) => above.name)
    .join(", ")})`,
  severity: "error",
  from: { path: under(layer.paths) },
  to: { path: under(LAYERS.slice(0, index + 1).flatMap((above) => above.paths)) },
}));

module.exports = {
  forbidden: [
    ...exemptingKnown({
      name: "no-circular",
      comment: "No import circle: a change to one file of a circle is a change to all of them.",
      severity: "error",
      from: {},
      to: { circular: true },
    }),
    ...upward.flatMap(exemptingKnown),
    {
      name: "no-unresolvable",
      comment: "Every relative import resolves to a file.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Tests (test/, and foo.test.ts beside its module) may import anything: they are not cruised.
    exclude: { path: "^(node_modules|build|dist|client/dist|test|drizzle)/|[.]test[.]ts$" },
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc parses TypeScript,
    // type-only imports included.
    parser: "swc",
    tsPreCompilationDeps: true,
    // Packages' subpaths (hono/streaming, the MCP SDK's …/mcp.js) resolve through their `exports`.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types"],
    },
  },
};
