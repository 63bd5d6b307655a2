import { mkdir, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../functions/node-runtime.js";
import { recordStageFailure } from "../../src/pipeline/failures.js";
import { call, createSession, message, startTestRuntime, waitForSettled } from "../fixtures/runtime.js";

/**
 * The dashboard in a real headless browser (Debian's chromium, driven by playwright-core) against
 * the service on a loopback port; screenshots go to test-artifacts/.
 */
const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
let runtime: Runtime;
let server: ReturnType<typeof serve>;
let browser: Browser;
let base: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  server = serve({ fetch: runtime.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sessionId = await createSession(runtime.app, "dana");
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/events`, {
    events: [
      message("user", "My name is Dana and I live in Porto."),
      message("user", "I love sailing on weekends."),
      message("assistant", "Sailing in Porto sounds great!"),
    ],
  });
  await call(runtime.app, "POST", `/v1/sessions/${sessionId}/end`);
  await waitForSettled(runtime.app, "dana");
  await call(runtime.app, "POST", "/v1/context", { user_id: "dana", query: "Where does Dana live?", max_tokens: 400 });
  await mkdir("test-artifacts", { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await runtime?.close();
});

describe("dashboard", () => {
  it("shows memory health, retention, pipeline runs, a memory's history and sources, and the context inspector", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Limits for a loaded machine, not expectations: each wait ends as soon as the page is ready.
    page.setDefaultTimeout(120_000);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${base}/dashboard?user_id=dana`);
    await page.waitForSelector("body.loaded");

    const health = await page.locator("#health").innerText();
    expect(health).toMatch(/\d+\s+memories/);
    expect(health).toContain("semantic");
    expect(health).toContain("average retention");
    expect(health).toContain("forgotten in 7 days");
    expect(await page.locator("#histogram rect.bar").count()).toBe(10);
    expect(await page.locator("#curve polyline").count()).toBe(3);
    expect(await page.locator("#curve").innerText()).toContain("λ = 0.1");
    const jobs = await page.locator("#jobs").innerText();
    expect(jobs).toContain("fast_replay");
    expect(jobs).toContain("deep_reflection");
    expect(jobs).toContain("completed");
    expect(await page.locator("#runs details.run").count()).toBeGreaterThan(0);
    // Cost metering: the user's calls by stage, with the offline provider named.
    const usage = await page.locator("#usage").innerText();
    expect(usage).toContain("input tokens");
    expect(usage).toContain("replay");
    expect(usage).toContain("offline");
    // Every trait shows its lifecycle stage.
    expect(await page.locator("#memories").innerText()).toMatch(/trait · (trend|emerging|established|core)/);
    // The entity graph: the user in the middle, related to the city they live in.
    expect(await page.locator("#graph .node").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator("#graph .node.kind-self text").textContent()).toBe("Dana");
    expect(await page.locator("#graph svg").innerHTML()).toContain("lives_in");
    await page.locator("#graph .node", { hasText: "Porto" }).click();
    await page.waitForSelector("#entity .relations li");
    expect(await page.locator("#entity").innerText()).toMatch(/lives_in Porto/);
    await page.screenshot({ path: "test-artifacts/dashboard-overview.png", fullPage: true });

    await page.locator("#memories a", { hasText: "Porto" }).first().click();
    await page.waitForSelector("#memory .history li");
    expect(await page.locator("#memory .history").innerText()).toMatch(/ADD by/);
    expect(await page.locator("#memory .sources").innerText()).toMatch(/event #\d/);

    await page.fill("#query", "Where does Dana live?");
    await page.click("#context-form button");
    await page.waitForSelector("#inspector tr.item");
    const inspector = await page.locator("#inspector").innerText();
    expect(inspector).toMatch(/\d+ of 800 tokens \(o200k_base\)/);
    expect(inspector).toContain("Porto");
    expect(inspector).toMatch(/memory, \d source event/);
    // The retrieval receipts: a chosen memory's rankings and signals.
    expect(inspector).toMatch(/ranked \d+ of \d+ by fused score: (vector|BM25) #\d/);
    expect(inspector).toMatch(/vector \S+ · sim \d\.\d\d · BM25/);
    expect(inspector).toMatch(/\d+ memories considered/);
    await page.screenshot({ path: "test-artifacts/dashboard-inspector.png", fullPage: true });
    expect(errors).toEqual([]);
    for (const file of ["test-artifacts/dashboard-overview.png", "test-artifacts/dashboard-inspector.png"])
      expect((await stat(file)).size).toBeGreaterThan(20_000);
  });

  it("shows parked pipeline stages with their error and retries them", async () => {
    const [session] = (await call(runtime.app, "GET", "/v1/sessions?user_id=dana")).body.sessions;
    await recordStageFailure(
      runtime.database.db,
      { appId: "default", userId: "dana", stage: "reflection", sessionId: session.id },
      { message: "400 the model refused the request", retryable: false },
    );
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Limits for a loaded machine, not expectations: each wait ends as soon as the page is ready.
    page.setDefaultTimeout(120_000);
    await page.goto(`${base}/dashboard?user_id=dana`);
    await page.waitForSelector("body.loaded");
    const parked = await page.locator("#parked").innerText();
    expect(parked).toContain("reflection of session");
    expect(parked).toContain("400 the model refused the request");
    await page.screenshot({ path: "test-artifacts/dashboard-parked.png", fullPage: true });
    await page.click("#retry");
    await page.waitForFunction(() => !document.querySelector("#parked .parked"));
    await waitForSettled(runtime.app, "dana");
    expect((await call(runtime.app, "GET", "/v1/pipeline/status?user_id=dana")).body.parked).toEqual([]);
  });

  it("runs under its content security policy, refuses framing, and never takes a key from the URL", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(120_000);
    const violations: string[] = [];
    page.on("console", (entry) => {
      if (/Content Security Policy/i.test(entry.text())) violations.push(entry.text());
    });
    const response = await page.goto(`${base}/dashboard?user_id=dana&key=mk_leaked_in_a_link`);
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response?.headers()["x-frame-options"]).toBe("DENY");
    await page.waitForSelector("body.loaded");
    expect(page.url()).not.toContain("key=");
    expect(page.url()).toContain("user_id=dana");
    expect(await page.evaluate(() => localStorage.getItem("mnemo-key"))).not.toBe("mk_leaked_in_a_link");
    expect(await page.inputValue("#key")).not.toBe("mk_leaked_in_a_link");
    expect(violations).toEqual([]);
    await page.close();
  });
});
