import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Fair share between tenants: a tenant at its limit of runs in flight gets a 429 problem with
 * Retry-After for one more, and another tenant's routing and runs go on as usual.
 */

const tmdb = JSON.parse(readFileSync("../shared/data/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
/** durable-objects/run-slots.ts */
const DEFAULT_MAX_CONCURRENT_RUNS = 4;

let service: TestService;
let model: ScriptedModel;
let busy: { id: string; key: string };
let other: { id: string; key: string };
/** While set, model calls wait on it: the runs that made them stay in flight. */
let gate: Promise<void> | undefined;
let openGate = (): void => undefined;

beforeAll(async () => {
  model = createScriptedModel();
  model.on({ name: "program", answer: { text: "```ts\nconst r = await tools.getGenreMovieList({});\nreturn r.genres.length;\n```" } });
  service = await startService({
    outbound: async (request) => {
      if (gate !== undefined) await gate;
      return model.handle(request);
    },
  });
  busy = await createTenant(service, "busy");
  other = await createTenant(service, "other");
  for (const tenant of [busy, other]) {
    await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  }
});
afterAll(async () => service.dispose());

function startRun(key: string) {
  return service.json<{ status: string; answer?: unknown }>("POST", "/v1/runs", { key, body: { task: "how many genres", tools: ["getGenreMovieList"], maxAttempts: 1 } });
}

describe("per-tenant limit of runs in flight", () => {
  it("answers 429 problem+json with Retry-After past the limit; another tenant routes and runs meanwhile", async () => {
    gate = new Promise((resolve) => {
      openGate = resolve;
    });
    const held = Array.from({ length: DEFAULT_MAX_CONCURRENT_RUNS }, () => startRun(busy.key));
    // Let the held runs reach the model (their slots are taken before that).
    await new Promise((resolve) => setTimeout(resolve, 500));

    const refused = await service.fetch("/v1/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${busy.key}`, "content-type": "application/json" },
      body: JSON.stringify({ task: "one too many", tools: ["getGenreMovieList"], maxAttempts: 1 }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const problem = (await refused.json()) as { type: string; status: number; detail: string };
    expect(problem.status).toBe(429);
    expect(problem.type).toMatch(/rate-limited$/);
    expect(problem.detail).toMatch(/runs in progress/);

    // The other tenant is not affected: its routing answers at once.
    const started = performance.now();
    const route = await service.json<{ candidates?: unknown[] }>("POST", "/v1/route", { key: other.key, body: { task: "list movie genres", k: 3 } });
    expect(route.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);

    // Nothing of the refused run was stored; the held runs finish once the model answers.
    openGate();
    gate = undefined;
    const finished = await Promise.all(held);
    for (const run of finished) expect(run.body.status).toBe("succeeded");
    const listed = await service.json<{ runs: { task: string }[] }>("GET", "/v1/runs", { key: busy.key });
    expect(listed.body.runs.map((r) => r.task)).not.toContain("one too many");

    // Slots are given back: the busy tenant can run again, and so can the other.
    expect((await startRun(busy.key)).body.status).toBe("succeeded");
    expect((await startRun(other.key)).body.status).toBe("succeeded");
  });
});
