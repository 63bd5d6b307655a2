import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type KeptHistory, keptDataDir, misplacedHistories, readKeptImport, writeKeptImport } from "./kept-import.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kept-import-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const history = { id: "case-a", userId: "changes-a", lastTurnAt: new Date("2023-05-30T10:00:00Z"), history: "h1" };

describe("a kept import", () => {
  it("is read back with its histories by the embedder that made it", async () => {
    expect(await readKeptImport(dir, "use-lite-512")).toEqual(new Map());
    await writeKeptImport(dir, "use-lite-512", [history]);
    expect(await readKeptImport(dir, "use-lite-512")).toEqual(new Map([["case-a", history]]));
  });

  it("is refused to another embedder, with the directory and both models named", async () => {
    await writeKeptImport(dir, "use-lite-512", [history]);
    await expect(readKeptImport(dir, "gemini:gemini-embedding-001@768")).rejects.toThrow(
      `--import-dir ${dir} holds vectors of use-lite-512, and this run embeds with gemini:gemini-embedding-001@768`,
    );
  });

  it("written before imports named their embedder is refused, saying how to go on", async () => {
    await writeKeptImport(dir, "use-lite-512", [history]);
    const { histories } = JSON.parse(await readFile(join(dir, "import.json"), "utf8")) as { histories: unknown[] };
    await writeFile(join(dir, "import.json"), JSON.stringify(histories));
    await expect(readKeptImport(dir, "use-lite-512")).rejects.toThrow(/names no embedder .*import into another directory/);
  });

  it("holding data but no manifest (an import interrupted before it wrote one) is refused", async () => {
    await mkdir(keptDataDir(dir), { recursive: true });
    await expect(readKeptImport(dir, "use-lite-512")).rejects.toThrow(`--import-dir ${dir} holds data but no import.json`);
  });

  it("whose manifest does not parse is refused with the directory and the field", async () => {
    await writeFile(join(dir, "import.json"), "{ not json");
    await expect(readKeptImport(dir, "use-lite-512")).rejects.toThrow(`--import-dir ${dir}: import.json is not JSON`);
    await writeFile(join(dir, "import.json"), JSON.stringify({ embedder: "use-lite-512", histories: [{ ...history, lastTurnAt: null }] }));
    await expect(readKeptImport(dir, "use-lite-512")).rejects.toThrow(/import\.json: histories\.0\.lastTurnAt/);
  });

  it("names the cases kept inside another history than the set now gives them", () => {
    const kept = new Map<string, KeptHistory>([
      ["case-a", history],
      ["case-b", { ...history, id: "case-b", history: "h2" }],
      ["case-c", { id: "case-c", userId: "changes-c", lastTurnAt: new Date(0) }],
    ]);
    expect(misplacedHistories(kept, () => "h1")).toEqual(["case-b"]);
    expect(misplacedHistories(kept, (id) => (id === "case-b" ? "h2" : "h1"))).toEqual([]);
  });
});
