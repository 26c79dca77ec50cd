import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../functions/chain/stored-run";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { CREDENTIALS_KEY, createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const PLANTED = "sk-planted-tool-secret-7Qw9Zx2Lp4";

/**
 * Every check runs twice: with programs on the program host (its own workerd process, as
 * `npm start` and the other tests run them) and in the service's own process (as deployed).
 */
const PLACEMENTS = [
  ["programs on the program host", true],
  ["programs in the service's process (as deployed)", false],
] as const;

describe.each(PLACEMENTS)("%s", (_placement, programHost) => {
  let service: TestService;
  let model: ScriptedModel;
  let tenant: { id: string; key: string };
  const upstreamCalls: string[] = [];

  beforeAll(async () => {
    model = createScriptedModel();
    service = await startService({
      programHost,
      outbound: async (request) => {
        const url = new URL(request.url);
        if (url.hostname === "model.atc.test") return model.handle(request);
        upstreamCalls.push(request.url);
        return Response.json({ echoed: Object.fromEntries(request.headers.entries()) });
      },
    });
    tenant = await createTenant(service, "contained");
    await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
    await service.json("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "list", source: "secret", tools: [{ name: "whoami", method: "GET", url: "https://secure.example.com/whoami" }] },
    });
    const stored = await service.json("PUT", "/v1/credentials", { key: tenant.key, body: { scope: { tool: "whoami" }, scheme: "bearer", value: PLANTED } });
    expect(stored.status).toBe(201);
    // The very first program isolate of a fresh workerd pays one-off start costs (about a second
    // here); "usual" latency is that of a warm service.
    await runProgram("return 1;");
  });
  afterAll(async () => service.dispose());

  /**
   * A deadline well inside the test's own timeout (and long enough that the allocation bomb's fuel,
   * which scales with the deadline, lasts until it runs out of memory): should an attempt ever stall, the run comes back
   * failed with the stop it got, instead of the test timing out with nothing to read.
   */
  const TEST_DEADLINE_MS = 25_000;
  /** Room for the deadline plus the model call and storing the run. */
  const TEST_TIMEOUT = { timeout: 40_000 };

  /** One run whose single program is `program`. */
  async function runProgram(program: string, tools: string[] = ["getSearchPerson"], limits: Record<string, number> = {}) {
    model.reset();
    model.on({ name: "program", answer: { text: `\`\`\`ts\n${program}\n\`\`\`` } });
    const res = await service.json<StoredRun>("POST", "/v1/runs", {
      key: tenant.key,
      body: { task: "containment check", tools, maxAttempts: 1, limits: { deadlineMs: TEST_DEADLINE_MS, ...limits } },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function timed(path: string, init?: RequestInit): Promise<number> {
    const start = performance.now();
    const res = await service.fetch(path, init);
    await res.arrayBuffer();
    expect(res.status).toBeLessThan(500);
    return performance.now() - start;
  }

  /** Latencies of /health and /v1/route sent every 20 ms while `work` runs. */
  async function latenciesDuring(work: Promise<unknown>): Promise<number[]> {
    const latencies: Promise<number>[] = [];
    let done = false;
    void work.finally(() => {
      done = true;
    });
    for (let i = 0; i < 100 && !done; i++) {
      latencies.push(timed("/health"));
      latencies.push(
        timed("/v1/route", {
          method: "POST",
          headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
          body: JSON.stringify({ task: "find a person", k: 3 }),
        }),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    await work;
    return Promise.all(latencies);
  }

  /**
   * First, while the program isolate's JIT is still cold: the bomb run after the CPU-bound programs
   * below (which make the isolate's hot paths compile in the background) has livelocked local
   * workerd's V8 on this 2-core machine (README, "Tests").
   */
  describe("an allocation bomb", TEST_TIMEOUT, () => {
    it("turns an allocation bomb into a memory error, and the service still answers", async () => {
      const run = await runProgram("const hoard = [];\nwhile (true) hoard.push(new Array(1e6).fill(1));\nreturn hoard.length;");
      expect(run.status).toBe("failed");
      expect(run.attempts[0]?.error?.kind).toBe("memory");
      expect((await service.json("GET", "/health")).status).toBe(200);
      const after = await runProgram('const r = await tools.getSearchPerson({ query: "a" });\nreturn r.results.length;');
      expect(after.status).toBe("succeeded");
    });
  });

  describe("untrusted code stays contained", TEST_TIMEOUT, () => {
    it("has no fetch, connect, dynamic import or env", async () => {
      const fetchRun = await runProgram('const r = await fetch("https://example.com");\nreturn r.status;');
      expect(fetchRun.status).toBe("failed");
      expect(fetchRun.attempts[0]?.error?.message).toMatch(/fetch/);
      const connectRun = await runProgram('const s = connect("example.com:443");\nreturn 1;');
      expect(connectRun.attempts[0]?.error?.message).toMatch(/connect/);
      const importRun = await runProgram('const m = await import("cloudflare:workers");\nreturn Object.keys(m);');
      expect(importRun.status).toBe("failed");
      const envRun = await runProgram("return JSON.stringify({ env: typeof env, process: typeof process, keys: Object.getOwnPropertyNames(globalThis) });");
      expect(envRun.status).toBe("succeeded");
      const seen = JSON.parse(String(envRun.answer)) as { env: string; process: string; keys: string[] };
      expect(seen.env).toBe("undefined");
      expect(seen.process).toBe("undefined");
      expect(seen.keys).not.toContain("TOOLS");
      expect(seen.keys).not.toContain("fetch");
      expect(upstreamCalls.some((u) => u.includes("example.com/") && !u.includes("secure.example.com"))).toBe(false);
    });

    it("refuses tools outside the candidate set", async () => {
      const run = await runProgram("return await tools.whoami({});", ["getSearchPerson"]);
      expect(run.status).toBe("failed");
      expect(run.attempts[0]?.error?.message).toMatch(/whoami/);
      expect(upstreamCalls.some((u) => u.includes("secure.example.com"))).toBe(false);
    });

    it("cuts off a program that makes 10,000 calls at the call limit", async () => {
      const before = upstreamCalls.length;
      const run = await runProgram('for (let i = 0; i < 10000; i++) await tools.whoami({});\nreturn "done";', ["whoami"], { maxToolCalls: 20 });
      expect(run.status).toBe("failed");
      expect(run.attempts[0]?.error?.kind).toBe("too_many_calls");
      expect(upstreamCalls.length - before).toBeLessThanOrEqual(20);
    });

    it("never shows a planted credential in any output, trace, log or prompt", async () => {
      // The upstream echoes the request headers back, Authorization included: the worst case.
      const run = await runProgram("const me = await tools.whoami({});\nconsole.log(JSON.stringify(me));\nreturn JSON.stringify(me);", ["whoami"]);
      expect(run.status).toBe("succeeded");
      const everything =
        JSON.stringify(run) + JSON.stringify(model.requests) + JSON.stringify((await service.json("GET", "/v1/runs", { key: tenant.key })).body);
      expect(everything).not.toContain(PLANTED);
      expect(everything).not.toContain(CREDENTIALS_KEY);
      expect(JSON.stringify(run)).toContain("REDACTED");
    });
  });

  describe("runaway programs are stopped and the service keeps answering", TEST_TIMEOUT, () => {
    // CPU-bound programs last in the file: a program run in the service's process after them has
    // livelocked local workerd's V8 on this 2-core machine (docs/testing.md), and nothing runs after these.
    it("stops runaway recursion and a promise that never settles", async () => {
      const recursion = await runProgram("function down(n) { return down(n + 1) + 1; }\nreturn down(0);");
      expect(recursion.attempts[0]?.error?.kind).toBe("stack_overflow");
      const stuck = await runProgram("await new Promise(() => {});\nreturn 1;");
      expect(stuck.attempts[0]?.error?.kind).toBe("never_settles");
    });

    it("stops an infinite loop by counting, while /health and /v1/route stay responsive", async () => {
      // "Usual": the same traffic while a harmless program runs.
      const usual = Math.max(...(await latenciesDuring(runProgram("return 1;"))));
      const during = await latenciesDuring(runProgram("while (true) {}\nreturn 1;"));
      console.log(`latency during while(true): max ${Math.max(...during).toFixed(1)} ms, usual ${usual.toFixed(1)} ms`);
      expect(during.length).toBeGreaterThan(0);
      expect(Math.max(...during)).toBeLessThan(usual + 750);
      const run = await runProgram("while (true) {}\nreturn 1;");
      expect(run.status).toBe("failed");
      expect(run.attempts[0]?.error?.kind).toBe("cpu_budget");
    });

    it("stops a busy counting loop too, without holding up other requests", async () => {
      const usual = Math.max(...(await latenciesDuring(runProgram("return 1;"))));
      const program = "let x = 0;\nfor (let i = 0; ; i++) { x = (x + i * 7) % 1000003; }\nreturn x;";
      const during = await latenciesDuring(runProgram(program));
      console.log(`latency during a counting loop: max ${Math.max(...during).toFixed(1)} ms, usual ${usual.toFixed(1)} ms`);
      expect(Math.max(...during)).toBeLessThan(usual + 750);
      const run = await runProgram(program);
      expect(run.attempts[0]?.error?.kind).toBe("cpu_budget");
    });
  });
});
