import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/config/env.js";
import { o200kTokenizer } from "../../src/context/o200k-tokenizer.js";
import { bpeTokenizer } from "../../src/context/tokenizer.js";
import { chooseDriver } from "../../src/db/connect.js";
import { isTransactionConflict, retryOnConflict } from "../../src/db/connection-errors.js";
import { backoffMs, parseTimeString, sleepUntil } from "../../src/executor/durations.js";
import { assertSupportedKey, evaluateKey } from "../../src/executor/expressions.js";
import { ruleImportance } from "../../src/memory/write/importance.js";
import { durationMs } from "../../src/util/duration.js";
import { stableUuid } from "../../src/util/stable-id.js";
import { canonicalAttribute } from "../../src/vocabulary/fact-attributes.js";

describe("configuration", () => {
  it("applies defaults", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ PORT: 8787, DATA_DIR: "./.data", LLM_PROVIDER: "offline", INNGEST_MODE: "embedded" });
  });
  it("names every invalid setting", () => {
    expect(() => parseEnv({ PORT: "eighty", REPLAY_DEBOUNCE: "soon" })).toThrow(/PORT.*REPLAY_DEBOUNCE|REPLAY_DEBOUNCE.*PORT/);
  });
  it("requires a key for Gemini", () => {
    expect(() => parseEnv({ LLM_PROVIDER: "gemini" })).toThrow(/GEMINI_API_KEY/);
  });
  it("requires models for an OpenAI-compatible server, and a key only for OpenAI itself", () => {
    expect(() => parseEnv({ LLM_PROVIDER: "openai", OPENAI_BASE_URL: "http://localhost:11434/v1" })).toThrow(/OPENAI_MODEL/);
    expect(() => parseEnv({ EMBEDDING_PROVIDER: "openai", OPENAI_BASE_URL: "http://localhost:11434/v1" })).toThrow(
      /OPENAI_EMBEDDING_MODEL/,
    );
    expect(() => parseEnv({ LLM_PROVIDER: "openai", OPENAI_MODEL: "gpt-5-mini" })).toThrow(/OPENAI_API_KEY/);
    expect(parseEnv({ LLM_PROVIDER: "openai", OPENAI_MODEL: "llama3.2", OPENAI_BASE_URL: "http://localhost:11434/v1" })).toMatchObject({
      OPENAI_RESPONSE_FORMAT: "json_schema",
    });
  });
  it("refuses a stop whose delay or idle connections cannot end within SHUTDOWN_TIMEOUT", () => {
    expect(parseEnv({})).toMatchObject({ SHUTDOWN_DELAY: "5s", SHUTDOWN_TIMEOUT: "10s" });
    expect(() => parseEnv({ SHUTDOWN_TIMEOUT: "3s" })).toThrow(
      /^Invalid configuration: SHUTDOWN_DELAY: must be shorter than SHUTDOWN_TIMEOUT \(3s\)/,
    );
    expect(() => parseEnv({ SHUTDOWN_DELAY: "0s", SHUTDOWN_TIMEOUT: "4s", HTTP_KEEP_ALIVE_TIMEOUT: "4s" })).toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT: must be shorter/,
    );
    expect(() => parseEnv({ SHUTDOWN_DELAY: "soon" })).toThrow(/^Invalid configuration: SHUTDOWN_DELAY: expected a duration/);
    expect(parseEnv({ SHUTDOWN_DELAY: "0s", SHUTDOWN_TIMEOUT: "3s", HTTP_KEEP_ALIVE_TIMEOUT: "2s" })).toMatchObject({
      SHUTDOWN_DELAY: "0s",
    });
  });
  it("reads durations", () => {
    expect(durationMs("250ms")).toBe(250);
    expect(durationMs("2m")).toBe(120_000);
  });
  it("chooses the driver from the URL", () => {
    expect(chooseDriver({})).toBe("pglite");
    expect(chooseDriver({ url: "postgres://u:p@localhost:5432/db" })).toBe("pg");
    expect(chooseDriver({ url: "postgres://u:p@ep-cool-1.eu-central-1.aws.neon.tech/db" })).toBe("neon");
    expect(chooseDriver({ url: "postgres://u:p@localhost/db", driver: "neon" })).toBe("neon");
  });
});

describe("fact keys", () => {
  it("reads the names of one profile attribute as one, and leaves other keys alone", () => {
    expect(canonicalAttribute("profile:home_city")).toBe("profile:location");
    expect(canonicalAttribute("profile:user_location")).toBe("profile:location");
    expect(canonicalAttribute("profile:job_title")).toBe("profile:occupation");
    expect(canonicalAttribute("profile:hometown")).toBe("profile:origin");
    expect(canonicalAttribute("profile:sister")).toBe("profile:sister");
    expect(canonicalAttribute("attitude:city")).toBe("attitude:city");
  });
});

describe("executor helpers", () => {
  it("parses Inngest time strings", () => {
    expect(parseTimeString("1h30m")).toBe(5_400_000);
    expect(parseTimeString("500ms")).toBe(500);
    expect(() => parseTimeString("5 minutes")).toThrow();
    expect(sleepUntil("2s", 1000)).toBe(3000);
    expect(sleepUntil("2030-01-01T00:00:00.000Z", 0)).toBe(Date.parse("2030-01-01T00:00:00.000Z"));
  });
  it("backs off exponentially within jittered bounds and a cap", () => {
    expect(backoffMs(0, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(3, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffMs(20, 1000, 60_000, () => 1)).toBe(60_000);
  });
  it("evaluates event paths and their concatenation, and refuses other expressions", () => {
    expect(evaluateKey("event.data.session_id", { data: { session_id: "s1" } })).toBe("s1");
    expect(evaluateKey("event.data.missing", { data: {} })).toBe("");
    expect(evaluateKey('event.data.app_id + ":" + event.data.user_id', { data: { app_id: "acme", user_id: "ann" } })).toBe("acme:ann");
    expect(evaluateKey("event.data.a+'+'+event.data.b", { data: { a: "x", b: 2 } })).toBe("x+2");
    for (const unsupported of ["event.data.a > 3", "size(event.data.a)", 'event.data.a + "open', "event.data.a +", "data.a"]) {
      expect(() => assertSupportedKey(unsupported, "fn"), unsupported).toThrow(/event.data/);
    }
  });
  it("derives stable, well-formed UUIDs", () => {
    expect(stableUuid("run-1:0")).toBe(stableUuid("run-1:0"));
    expect(stableUuid("run-1:0")).not.toBe(stableUuid("run-1:1"));
    expect(stableUuid("x")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("tokenizer and importance", () => {
  it("counts with o200k and truncates at a word boundary without half characters", () => {
    expect(o200kTokenizer.count("")).toBe(0);
    expect(o200kTokenizer.count("hello world")).toBe(2);
    const cut = o200kTokenizer.truncate("alpha beta gamma delta epsilon", 3);
    expect("alpha beta gamma delta epsilon".startsWith(cut)).toBe(true);
    expect(o200kTokenizer.count(cut)).toBeLessThanOrEqual(3);
    expect(o200kTokenizer.truncate("🚲🚲🚲🚲", 3)).not.toContain("\uFFFD");
  });
  it("keeps the counts of short texts, the most recently used 10,000", () => {
    let counted = 0;
    const encoding = {
      countTokens: (text: string) => {
        counted++;
        return o200kTokenizer.count(text);
      },
      encode: () => [],
      decode: () => "",
    };
    const tokenizer = bpeTokenizer("counting", encoding);
    expect(tokenizer.count("- we talked about jazz\n")).toBe(o200kTokenizer.count("- we talked about jazz\n"));
    expect(tokenizer.count("- we talked about jazz\n")).toBe(o200kTokenizer.count("- we talked about jazz\n"));
    expect(counted).toBe(1);
    const long = "jazz ".repeat(200);
    tokenizer.count(long);
    tokenizer.count(long);
    expect(counted).toBe(3);
    // 10,000 other texts, the first one used again half-way: it stays, the oldest of the others goes.
    for (let i = 0; i < 10_000; i++) {
      tokenizer.count(`memory ${i}`);
      if (i === 5_000) tokenizer.count("- we talked about jazz\n");
    }
    counted = 0;
    tokenizer.count("- we talked about jazz\n");
    tokenizer.count("memory 9999");
    expect(counted).toBe(0);
    tokenizer.count("memory 0");
    expect(counted).toBe(1);
  });
  it("rates explicit requests and personal facts above small talk", () => {
    expect(ruleImportance(["nice weather today"])).toBeLessThan(ruleImportance(["Please remember my birthday is May 3rd, I love cake"]));
    expect(ruleImportance(["remember love important birthday decided my wife"])).toBeLessThanOrEqual(1);
  });
});

describe("retryOnConflict", () => {
  it("runs a transaction again after a deadlock or serialization failure, however wrapped, and gives up on anything else", async () => {
    const deadlock = new Error("Failed query", { cause: Object.assign(new Error("deadlock detected"), { code: "40P01" }) });
    expect(isTransactionConflict(deadlock)).toBe(true);
    expect(isTransactionConflict(Object.assign(new Error("could not serialize"), { code: "40001" }))).toBe(true);
    expect(isTransactionConflict(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    let calls = 0;
    expect(
      await retryOnConflict(async () => {
        calls += 1;
        if (calls < 3) throw deadlock;
        return "done";
      }),
    ).toBe("done");
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls += 1;
        throw deadlock;
      }),
    ).rejects.toBe(deadlock);
    expect(calls).toBe(3);
    const other = new Error("bad statement");
    await expect(retryOnConflict(() => Promise.reject(other))).rejects.toBe(other);
  });
});
