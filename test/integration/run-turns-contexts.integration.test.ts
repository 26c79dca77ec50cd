import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Run turns (services/run-turns.ts) are one queue per isolate that every run's phases and tool
 * calls wait in. A waiter whose request has ended (its run hit the deadline while the waiter's
 * tool call was still queued) must not be woken from another request: workerd then logs "A
 * promise was resolved or rejected from a different request context" and cancels the
 * continuation; deployed, such a promise can hang or throw. Twenty runs whose programs keep many
 * tool calls in flight hit their deadline together, as the battery did, with programs in
 * Worker Loader isolates as deployed (each tool call a request of its own to the service), and
 * half of their clients give up. Before the fix this logged the warning 385 times (frames
 * `#pass` ← `RunTurns.take`).
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const CROSS_CONTEXT_WARNING = "different request context";

let service: TestService;
let runtimeLog = "";

beforeAll(async () => {
  const model = createScriptedModel();
  // Twenty tool calls in flight at once, again and again until the deadline stops the program.
  model.on({
    name: "program",
    answer: {
      text: "```ts\nfor (;;) {\n  await Promise.all(Array.from({ length: 20 }, () => tools.getGenreMovieList({})));\n}\n```",
    },
  });
  service = await startService({
    outbound: (request) => model.handle(request),
    onRuntimeOutput: (text) => (runtimeLog += text),
    runtimeWarnings: true,
    programHost: false,
  });
});
afterAll(async () => service.dispose());

describe("run turns across requests", () => {
  it("never wakes a waiter of a request that has ended: no cross-request promise warning after twenty runs hit their deadline", async () => {
    const tenants = await Promise.all(Array.from({ length: 5 }, (_, i) => createTenant(service, `turns-${i}`)));
    for (const tenant of tenants) {
      await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
    }
    const body = JSON.stringify({ task: "how many genres", tools: ["getGenreMovieList"], maxAttempts: 1, limits: { deadlineMs: 1_500 } });
    const send = (key: string, signal?: AbortSignal) =>
      service.fetch("/v1/runs", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
        ...(signal === undefined ? {} : { signal }),
      });
    // Twenty runs at once, as deployed (programs in Worker Loader isolates, whose tool calls reach the service as requests of their own):
    // each program keeps tool calls queued until its deadline; the clients of half of them give up meanwhile.
    const outcomes = await Promise.allSettled(
      tenants.flatMap((tenant) => Array.from({ length: 4 }, (_, i) => send(tenant.key, i % 2 === 0 ? AbortSignal.timeout(600 + 100 * i) : undefined))),
    );
    for (const outcome of outcomes) if (outcome.status === "fulfilled") expect([201, 429]).toContain(outcome.value.status);
    expect(outcomes.some((o) => o.status === "fulfilled")).toBe(true);
    // Waiters left behind are woken, if ever, by the next runs' phases: a few more runs after the storm.
    for (const tenant of tenants.slice(0, 2)) {
      await service.json("POST", "/v1/runs", {
        key: tenant.key,
        body: { task: "how many genres", tools: ["getGenreMovieList"], maxAttempts: 1, limits: { deadlineMs: 500 } },
      });
    }
    console.log(`workerd log: ${runtimeLog.length} characters, cross-request warnings: ${runtimeLog.split(CROSS_CONTEXT_WARNING).length - 1}`);
    expect(runtimeLog).not.toContain(CROSS_CONTEXT_WARNING);
  }, 180_000);
});
