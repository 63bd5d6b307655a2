import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readKeptImport, writeKeptImport } from "./kept-import.js";

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
    await expect(readKeptImport(dir, "use-lite-512")).rejects.toThrow(/names no embedder .*import again into another directory/);
  });
});
