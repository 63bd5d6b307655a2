import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/database.js";
import { queryRowsPrepared, queryRowsWithSettings } from "../../src/db/pool-statements.js";
import { oneConnectionDatabase } from "../fixtures/database.js";

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close()));
});

/** A fresh database behind one connection, closed and dropped after the test. */
async function open(options: { preparedStatements?: boolean } = {}) {
  const database = await oneConnectionDatabase(options);
  opened.push(database);
  return database;
}

describe("named statements (the final read of a recall)", () => {
  it("prepares each shape of a statement once per connection (PGlite: once per session), and returns what queryRows returns", async () => {
    const { handle } = await open();
    const shaped = (n: number) => sql`SELECT ${n}::int AS n, now() <= now() AS ok, '{"a":1}'::jsonb AS doc`;
    for (const n of [1, 2, 3]) expect(await queryRowsPrepared(handle.db, shaped(n))).toEqual(await queryRows(handle.db, shaped(n)));
    await queryRowsPrepared(handle.db, sql`SELECT ${4}::int AS n, 'another shape' AS label`);
    const prepared = await queryRows<{ name: string; statement: string }>(
      handle.db,
      sql`SELECT name, statement FROM pg_prepared_statements ORDER BY statement`,
    );
    // PGlite's driver has no named statements: there they are prepared with PREPARE.
    expect(prepared.map((row) => row.name.startsWith("mnemo_"))).toEqual([true, true]);
    expect(prepared.map((row) => row.statement)).toEqual([expect.stringContaining("another shape"), expect.stringContaining("doc")]);
  });

  it("passes every kind of value as the statement's own types, and prepares a shape once when its first uses arrive together", async () => {
    const { handle } = await open();
    const at = new Date("2026-03-01T12:34:56.789Z");
    // As text: a server's driver parses a timestamp into a Date where drizzle leaves a string.
    const shaped = (text: string | null, n: number, flag: boolean) =>
      sql`SELECT ${text}::text AS text, ${n}::float8 AS n, ${flag}::boolean AS flag, (${at}::timestamptz)::text AS at,
                 ${`{${[1, 2].map((i) => `00000000-0000-4000-8000-00000000000${i}`).join(",")}}`}::uuid[] AS ids`;
    const awkward = ["it's", "back\\slash \\' and '' quotes", "ünïcødé 😀", "$1 -- ; SELECT 1", null];
    for (const [i, text] of awkward.entries()) {
      expect(await queryRowsPrepared(handle.db, shaped(text, i + 0.5, i % 2 === 0))).toEqual(
        await queryRows(handle.db, shaped(text, i + 0.5, i % 2 === 0)),
      );
    }
    const first = sql`SELECT ${"together"}::text AS label, ${1}::int AS n`;
    const answers = await Promise.all([1, 2, 3].map(() => queryRowsPrepared(handle.db, first)));
    expect(answers).toEqual([1, 2, 3].map(() => [{ label: "together", n: 1 }]));
  });

  it("prepares a statement again after it failed to prepare, once what it needs exists", async () => {
    const { handle } = await open();
    const later = sql`SELECT n FROM prepared_later WHERE n = ${2}::int`;
    await expect(queryRowsPrepared(handle.db, later)).rejects.toThrow(/prepared_later/);
    await handle.db.execute(sql`CREATE TABLE prepared_later AS SELECT generate_series(1, 3) AS n`);
    expect(await queryRowsPrepared(handle.db, later)).toEqual([{ n: 2 }]);
  });

  it("runs them unnamed with DATABASE_PREPARED_STATEMENTS=false (a pooler that cannot keep them)", async () => {
    const { handle } = await open({ preparedStatements: false });
    expect(await queryRowsPrepared(handle.db, sql`SELECT ${7}::int AS n`)).toEqual([{ n: 7 }]);
    expect(await queryRows(handle.db, sql`SELECT name FROM pg_prepared_statements`)).toEqual([]);
  });
});

describe("statements with settings of their own (the vector arm)", () => {
  it("runs with its settings in force for it alone, its values inlined whatever standard_conforming_strings says", async () => {
    // One connection: what the statement set would still be there for the next one if it leaked.
    const { handle } = await open();
    const awkward = ["it's", "back\\slash \\' and '' quotes", "ünïcødé 😀", "$1 -- ; SELECT 1"];
    const statement = sql`SELECT current_setting('jit') AS jit, current_setting('work_mem') AS work_mem,
                                 ARRAY[${sql.join(
                                   awkward.map((text) => sql`${text}::text`),
                                   sql`, `,
                                 )}] AS texts, ${42}::int AS n`;
    const setting = async (name: string) =>
      (await queryRows<{ value: string }>(handle.db, sql`SELECT current_setting(${name}) AS value`))[0]?.value;
    const before = { jit: await setting("jit"), work_mem: await setting("work_mem") };
    for (const conforming of ["on", "off"]) {
      await handle.db.execute(sql.raw(`SET standard_conforming_strings = ${conforming}`));
      const rows = await queryRowsWithSettings<{ jit: string; work_mem: string; texts: string[]; n: number }>(
        handle.db,
        { jit: "off", work_mem: "7MB" },
        statement,
      );
      expect(rows).toEqual([{ jit: "off", work_mem: "7MB", texts: awkward, n: 42 }]);
      expect({ jit: await setting("jit"), work_mem: await setting("work_mem") }).toEqual(before);
    }
  });
});
