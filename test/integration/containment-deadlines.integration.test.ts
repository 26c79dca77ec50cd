import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../functions/chain/stored-run";
import { HOSTILE_PROGRAMS, PACED_PROGRAM } from "../helpers/hostile-programs";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, healthLatency, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Hostile programs against the service in workerd: each is stopped by a named limit before its
 * deadline plus a margin, and the service answers /health while it runs. Margins are generous:
 * the machine running the tests is shared and noisy.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const DEADLINE_MS = 3_000;
/** Allowed past the deadline's 10 %: request handling, a loaded machine. */
const MARGIN_MS = 1_500;
/** A /health sent while a program runs must be answered within this. */
const HEALTH_MARGIN_MS = 1_500;

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({ outbound: async (request) => model.handle(request) });
  tenant = await createTenant(service, "deadlines");
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  await startRun("return 1;").done; // first program isolate: one-off start costs
});
afterAll(async () => service.dispose());

function startRun(program: string, limits: Record<string, number> = {}) {
  model.reset();
  model.on({ name: "program", answer: { text: `\`\`\`ts\n${program}\n\`\`\`` } });
  const started = performance.now();
  const done = service
    .json<StoredRun>("POST", "/v1/runs", { key: tenant.key, body: { task: "deadline check", tools: ["getGenreMovieList"], maxAttempts: 1, limits } })
    .then((res) => ({ status: res.status, body: res.body, elapsedMs: performance.now() - started }));
  return { done };
}

/** Run `program`, sending /health 30 ms in; the run's outcome and how long /health took. */
async function hostile(program: string, limits: Record<string, number> = {}) {
  const { done } = startRun(program, { deadlineMs: DEADLINE_MS, ...limits });
  await new Promise((resolve) => setTimeout(resolve, 30));
  const [run, health] = await Promise.all([done, healthLatency(service)]);
  return { ...run, healthMs: health };
}

describe("every hostile program is stopped by a named limit before its deadline", () => {
  for (const [name, program] of HOSTILE_PROGRAMS) {
    it(`stops ${name}; /health is answered meanwhile`, async () => {
      const run = await hostile(program);
      console.log(
        `${name}: ${run.body.attempts[0]?.error?.kind}/${run.body.attempts[0]?.error?.limit} after ${run.elapsedMs.toFixed(0)} ms, /health ${run.healthMs.toFixed(0)} ms`,
      );
      expect(run.status).toBe(201);
      expect(run.body.status).toBe("failed");
      const error = run.body.attempts[0]?.error;
      expect(error?.limit, JSON.stringify(error)).toMatch(/^(deadlineMs|stretchFuel|totalFuel|stretchBudget|totalBudget|memoryLimitBytes|maxStackSizeBytes)$/);
      expect(error?.message.length).toBeGreaterThan(10);
      expect(run.elapsedMs).toBeLessThan(DEADLINE_MS * 1.1 + MARGIN_MS);
      expect(run.healthMs).toBeLessThan(HEALTH_MARGIN_MS);
    });
  }

  it("stops at the deadline itself a program whose every stretch stays within its budgets", async () => {
    const run = await hostile(PACED_PROGRAM, { deadlineMs: 1_500, maxToolCalls: 200 });
    const error = run.body.attempts[0]?.error;
    expect(run.body.status).toBe("failed");
    expect(error?.limit, JSON.stringify(error)).toMatch(/^(deadlineMs|totalBudget|totalFuel|maxToolCalls)$/);
    expect(run.elapsedMs).toBeLessThan(1_500 * 1.1 + MARGIN_MS);
  });
});

describe("a run that awaits tool calls lets other requests in", () => {
  it("answers /health within the margin while a run awaits 200 tool calls", async () => {
    const { done } = startRun("let n = 0;\nfor (let i = 0; i < 200; i++) { await tools.getGenreMovieList({}); n++; }\nreturn n;", {
      maxToolCalls: 200,
      deadlineMs: 60_000,
    });
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    const during: number[] = [];
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (!finished) {
      const latency = await healthLatency(service);
      if (!finished) during.push(latency);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const run = await done;
    console.log(`200 tool calls in ${run.elapsedMs.toFixed(0)} ms; /health during it: ${during.length} answered, max ${Math.max(...during).toFixed(0)} ms`);
    expect(run.body.status).toBe("succeeded");
    expect(run.body.answer).toBe(200);
    // Before the fix, the first /health came back only when the run had ended.
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...during)).toBeLessThan(HEALTH_MARGIN_MS);
  });
});
