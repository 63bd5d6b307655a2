import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressOf, fixedBy, memoryKey, namespaceOf, parseMemoryKey } from "./namespaces.js";

/** A namespace label LangGraph accepts: non-empty, no `.` or `:`. */
const label = fc.string({ minLength: 1, maxLength: 8, unit: "grapheme" }).filter((text) => !/[.:\0]/.test(text));
const key = fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }).filter((text) => !text.includes("\0"));

/** What POST /v1/memories does to a key before storing it. */
const serviceNormalised = (stored: string) => stored.trim().toLowerCase().replace(/\s+/g, "_");

describe("fact keys of store items", () => {
  it("survive the service's normalisation and read back as the kind, path and key they came from", () => {
    fc.assert(
      fc.property(label, fc.array(label, { maxLength: 2 }), key, (kind, path, itemKey) => {
        let stored: string;
        try {
          stored = memoryKey(kind, path, itemKey);
        } catch {
          return; // longer than the service keeps: refused, never stored
        }
        expect(serviceNormalised(stored)).toBe(stored);
        expect(parseMemoryKey(stored)).toEqual({ kind, path, key: itemKey });
      }),
    );
  });

  it("keep keys that differ only in case or spacing apart, and read the pipeline's own keys", () => {
    expect(memoryKey("notes", [], "Trip Plan")).not.toBe(memoryKey("notes", [], "trip plan"));
    expect(memoryKey("notes", [], "trip plan")).not.toBe(memoryKey("notes", [], "trip_plan"));
    expect(parseMemoryKey("profile:location")).toEqual({ kind: "profile", path: [], key: "location" });
    expect(parseMemoryKey("family:daughter:maya")).toEqual({ kind: "family", path: ["daughter"], key: "maya" });
    expect(parseMemoryKey("single")).toBeUndefined();
    expect(parseMemoryKey("note:100%")).toBeUndefined();
    expect(() => memoryKey("notes", [], "k".repeat(120))).toThrow(/keeps 120/);
  });
});

describe("namespace layouts", () => {
  it("read the roles at their positions and the rest as a path, and write the same namespace back", () => {
    const address = addressOf(["memories", "ana", "work"], ["kind", "user"], "shop");
    expect(address).toEqual({ appId: "shop", userId: "ana", kind: "memories", path: ["work"] });
    expect(namespaceOf(address, ["kind", "user"])).toEqual(["memories", "ana", "work"]);
    expect(addressOf(["acme", "ana", "profile"], ["app", "user", "kind"], undefined).appId).toBe("acme");
    expect(() => addressOf(["ana"], ["user", "kind"], undefined)).toThrow(/shorter than its layout/);
    expect(fixedBy(["*", "ana"], ["kind", "user"])).toEqual({ user: "ana" });
    expect(fixedBy(["ana"], ["user", "kind"])).toEqual({ user: "ana" });
  });
});
