import { refuseProviderSettings } from "./evaluation-env.js";

/** The name `--ablate` takes for a comparison of whole groups of settings rather than of one. */
export const SETTING_GROUPS = "SETTINGS";

/**
 * The environment one value of an ablation runs under. For one setting, `{ [setting]: value }`.
 * For `SETTINGS`, each value names a group of settings as `NAME=value&NAME=value` ("defaults":
 * none), so that a before and an after that differ in several settings are answered in one run.
 *
 * @example
 * ablationEnv("SETTINGS", "CONTEXT_EXCERPT_TOKENS=0&CONTEXT_LATER_SHARE=0"); // both settings
 * ablationEnv("RECALL_GRAPH", "1"); // { RECALL_GRAPH: "1" }
 */
export function ablationEnv(setting: string | undefined, value: string): Record<string, string> {
  const settings = settingsOf(setting, value);
  refuseProviderSettings("--ablate", settings);
  return settings;
}

function settingsOf(setting: string | undefined, value: string): Record<string, string> {
  if (!setting) return {};
  if (setting !== SETTING_GROUPS) return { [setting]: value };
  if (value === "defaults") return {};
  return Object.fromEntries(
    value.split("&").map((pair) => {
      const [name, ...rest] = pair.split("=");
      if (!name || rest.length === 0) throw new Error(`--values: "${pair}" is not NAME=value`);
      return [name, rest.join("=")];
    }),
  );
}
