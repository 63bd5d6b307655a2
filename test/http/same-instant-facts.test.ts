import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { call, startTestRuntime } from "../fixtures/runtime.js";

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime.close());

type Version = { content: string; invalid_at: string | null; expired_at: string | null };

describe("facts stated at the same instant", () => {
  it("supersede one another in the order they were written, leaving one current version", async () => {
    // Concurrent writes of one key land in the same millisecond; an explicit valid_at makes it certain.
    const validAt = "2026-03-01T09:00:00.000Z";
    for (const content of ["Pia cycles to work.", "Pia walks to work.", "Pia takes the tram to work.", "Pia drives to work."]) {
      const written = await call(runtime.app, "POST", "/v1/memories", {
        user_id: "pia",
        type: "semantic",
        subtype: "preference",
        key: "commute:mode",
        value: content,
        content,
        valid_at: validAt,
      });
      expect(written.status).toBe(201);
    }
    const { body } = await call(runtime.app, "GET", "/v1/memories?user_id=pia&key=commute:mode&include_expired=true");
    const versions = body.memories as Version[];
    expect(versions).toHaveLength(4);
    const current = versions.filter((version) => version.expired_at === null && version.invalid_at === null);
    expect(current.map((version) => version.content)).toEqual(["Pia drives to work."]);
  });
});
