import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

/** Ids in the path are read like ids in the body: one schema (`src/vocabulary/external-id.ts`). */
let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime({ EXECUTOR_ENABLED: "false" });
});
afterAll(() => runtime.close());

const path = (id: string) => encodeURIComponent(id);

describe("user ids in the path", () => {
  it('DELETE /v1/users/ana%20 erases the "ana" that a padded body id created', async () => {
    expect((await call(runtime.app, "POST", "/v1/sessions", { user_id: "ana   " })).status).toBe(201);
    const erased = await call(runtime.app, "DELETE", `/v1/users/${path("ana ")}`);
    expect(erased.status).toBe(200);
    expect(erased.body.user_id).toBe("ana");
    expect(erased.body.erased.sessions).toBe(1);
  });

  it('NFC and NFD "José" are one user, in the body, the query and the path', async () => {
    const composed = "Jos\u00e9";
    const decomposed = "Jose\u0301";
    expect((await call(runtime.app, "POST", "/v1/sessions", { user_id: composed })).status).toBe(201);
    expect((await call(runtime.app, "POST", "/v1/sessions", { user_id: decomposed })).status).toBe(201);
    const listed = await call(runtime.app, "GET", `/v1/sessions?user_id=${path(decomposed)}`);
    expect(listed.body.sessions).toHaveLength(2);
    const erased = await call(runtime.app, "DELETE", `/v1/users/${path(decomposed)}`);
    expect(erased.body).toMatchObject({ user_id: composed, erased: { sessions: 2 } });
  });

  it("refuses a 5,000-character id, a control character and a blank id with 400 naming the field", async () => {
    for (const id of ["x".repeat(5_000), "ana\u0007", "   "]) {
      const refused = await call(runtime.app, "DELETE", `/v1/users/${path(id)}`);
      expect(refused.status, JSON.stringify(id.slice(0, 10))).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
      expect(JSON.stringify(refused.body.error)).toContain("user_id");
    }
  });

  it('refuses "." and ".." as ids where they are written (no URL path could name them again)', async () => {
    for (const id of [".", " .. "]) {
      const refused = await call(runtime.app, "POST", "/v1/sessions", { user_id: id });
      expect(refused.status, id).toBe(400);
      expect(JSON.stringify(refused.body.error)).toContain("user_id");
    }
    expect((await call(runtime.app, "POST", "/v1/sessions", { user_id: "..." })).status).toBe(201);
  });

  // Every route with a user id in its path.
  const routes = [
    { method: "DELETE", path: (id: string) => `/v1/users/${path(id)}`, body: undefined },
    { method: "POST", path: (id: string) => `/v1/users/${path(id)}/rebuild`, body: {} },
    { method: "GET", path: (id: string) => `/v1/users/${path(id)}/export`, body: undefined },
  ] as const;
  const rawIds = fc.oneof(
    // Padded, in either normal form.
    fc
      .record({
        core: fc.string({
          minLength: 1,
          maxLength: 30,
          unit: fc.constantFrom("a", "b", "é", "e\u0301", "Å", "ß", "-", "_", ".", "1", "ü"),
        }),
        before: fc.constantFrom("", " ", "  ", "\t"),
        after: fc.constantFrom("", " ", "   ", "\n"),
      })
      .map(({ core, before, after }) => `${before}${core}${after}`),
    // Too long, or with a control character.
    fc.integer({ min: 201, max: 6_000 }).map((length) => "u".repeat(length)),
    fc.constantFrom("a\u0001b", "a\u007fb", "a\u009fb"),
  );

  it.each(routes.map((route) => [`${route.method} ${route.path("{user_id}")}`, route] as const))(
    "%s reads the id as the body does (property)",
    async (_, route) => {
      await fc.assert(
        fc.asyncProperty(rawIds, async (raw) => {
          const expected = ExternalIdSchema.safeParse(raw);
          // A URL reads "." and ".." as its own segments: no path can carry them, so no id may be one.
          if ([".", ".."].includes(raw.trim())) {
            expect(expected.success).toBe(false);
            return;
          }
          const response = await runtime.app.request(route.path(raw), {
            method: route.method,
            ...(route.body ? { headers: { "content-type": "application/json" }, body: JSON.stringify(route.body) } : {}),
          });
          if (!expected.success) {
            expect(response.status).toBe(400);
            expect(await response.text()).toContain("user_id");
            return;
          }
          expect(response.status).toBeLessThan(300);
          if (route.method !== "GET") expect(((await response.json()) as { user_id: string }).user_id).toBe(expected.data);
        }),
        { numRuns: 30 },
      );
    },
  );
});
