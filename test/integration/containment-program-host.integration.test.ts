import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../functions/chain/stored-run";
import { PROGRAM_HOST_SECRET_HEADER } from "../../functions/sandbox/program-host/messages";
import { pidListeningOn, SCHED_IDLE, threadPolicy, threadsOf } from "../../scripts/program-host-process.mjs";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, healthLatency, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Programs run in the program host, a workerd process apart from the service's: the service
 * answers their tool calls, enforces the deadline with its own timer even when the host is
 * frozen, and the watchdog brings a dead or frozen host back, failing the attempts in flight with
 * a named limit.
 */

const tmdb = JSON.parse(readFileSync("../shared/data/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const HARMLESS = "const r = await tools.getGenreMovieList({});\nreturn r.genres.length;";
/** Allowed past a deadline: request handling on a loaded machine. */
const MARGIN_MS = 1_500;
/**
 * Watchdog timing for these tests. A frozen host is restarted after six checks that each wait out
 * their 400 ms timeout (at least ~3.6 s after the freeze), so the frozen-host attempt's 1.5 s
 * deadline always comes first: with three checks (~1.1 s) the restart could cut the attempt's
 * connection before its deadline, and it failed with `programHost` instead. A dead host refuses
 * connections at once, so it is restarted after about six intervals.
 */
const WATCHDOG = { intervalMs: 250, timeoutMs: 400, failuresBeforeRestart: 6 };

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };


/** Calls of the `slow` tool wait for this; `slowCalled` resolves when one arrives. */
let slowGate = Promise.resolve();
let slowCalled = (): void => undefined;

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    outbound: async (request) => {
      if (new URL(request.url).hostname !== "slow.example.com") return model.handle(request);
      slowCalled();
      await slowGate;
      return Response.json({ slow: true });
    },
    watchdog: WATCHDOG,
  });
  tenant = await createTenant(service, "program-host");
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: [{ name: "slow", method: "GET", url: "https://slow.example.com/wait" }] } });
});
afterAll(async () => service.dispose());

function host() {
  const programHost = service.programHost;
  if (programHost === undefined) throw new Error("the test service has no program host");
  return programHost;
}

async function run(program: string, limits: Record<string, number> = {}, tools = ["getGenreMovieList"]) {
  model.reset();
  model.on({ name: "program", answer: { text: "```ts\n" + program + "\n```" } });
  const started = performance.now();
  const res = await service.json<StoredRun>("POST", "/v1/runs", { key: tenant.key, body: { task: "program host", tools, maxAttempts: 1, limits } });
  return { status: res.status, body: res.body, ms: performance.now() - started };
}

/** The status the program host answers to GET /attempt with `headers` (node:http: fetch refuses upgrade headers). */
function attemptStatus(headers: Record<string, string>): Promise<number> {
  const [hostname, port] = host().address.split(":");
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port: Number(port), path: "/attempt", headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    // A 101 would come as an "upgrade" event: report it, so the assertion shows it.
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 101);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Where the host's threads can be put under SCHED_IDLE: Linux with util-linux's chrt. */
const IDLE_POLICY_AVAILABLE = process.platform === "linux" && spawnSync("chrt", ["--version"]).status === 0;

/** The scheduling policy of every thread of the program host's process (/proc). */
function hostThreadPolicies(): (number | undefined)[] {
  const pid = pidListeningOn(host().port);
  if (pid === undefined) throw new Error(`no process listens on ${host().address}`);
  return threadsOf(pid).map((tid) => threadPolicy(pid, tid));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("the program host", () => {
  it("runs a program whose tool calls the service answers", async () => {
    const result = await run(HARMLESS);
    expect(result.body.status, JSON.stringify(result.body)).toBe("succeeded");
    expect(result.body.answer).toBeGreaterThan(0);
    expect(result.body.attempts[0]?.trace).toMatchObject([{ tool: "getGenreMovieList", ok: true }]);
  });

  it.runIf(IDLE_POLICY_AVAILABLE)("runs every thread of the host under the idle CPU policy, so the service's threads come first", async () => {
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
    const policies = hostThreadPolicies();
    expect(policies.length).toBeGreaterThan(1);
    expect(policies.filter((policy) => policy !== undefined).every((policy) => policy === SCHED_IDLE), `policies ${policies.join(", ")}`).toBe(true);
  });

  it("runs nothing without the shared secret, and only over a WebSocket", async () => {
    const upgrade = { upgrade: "websocket", connection: "upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
    expect(await attemptStatus(upgrade)).toBe(403);
    expect(await attemptStatus({ ...upgrade, [PROGRAM_HOST_SECRET_HEADER]: `${host().secret}x` })).toBe(403);
    expect(await attemptStatus({ ...upgrade, [PROGRAM_HOST_SECRET_HEADER]: host().secret.slice(1) })).toBe(403);
    expect(await attemptStatus({ [PROGRAM_HOST_SECRET_HEADER]: host().secret })).toBe(426);
  });

  it("fails an attempt at its deadline by the service's own timer while the host is frozen; the watchdog restarts it", async () => {
    const restartsBefore = host().restarts;
    host().freeze();
    const deadlineMs = 1_500;
    const pending = run(HARMLESS, { deadlineMs });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The service's thread is not the host's: it answers at once.
    expect(await healthLatency(service)).toBeLessThan(MARGIN_MS);
    const frozen = await pending;
    const error = frozen.body.attempts[0]?.error;
    expect(frozen.body.status).toBe("failed");
    expect(error?.limit, JSON.stringify(error)).toBe("deadlineMs");
    expect(frozen.ms).toBeLessThan(deadlineMs * 1.1 + MARGIN_MS);

    await until(() => host().restarts > restartsBefore, 15_000);
    expect(host().restarts).toBe(restartsBefore + 1);
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
  });

  it("fails the attempts in flight with a named limit when the host dies; the watchdog restarts it", async () => {
    const restartsBefore = host().restarts;
    // The program waits on a tool call that is held until the host has died.
    let release = (): void => undefined;
    slowGate = new Promise((resolve) => {
      release = resolve;
    });
    const called = new Promise<void>((resolve) => {
      slowCalled = resolve;
    });
    const pending = run("await tools.slow({});\nreturn 1;", { deadlineMs: 20_000 }, ["slow"]);
    await called;
    await host().kill();
    release();
    const died = await pending;
    expect(died.status, JSON.stringify(died.body)).toBe(201);
    const error = died.body.attempts[0]?.error;
    expect(died.body.status).toBe("failed");
    expect(error?.limit, JSON.stringify(error)).toBe("programHost");
    expect(error?.message).toMatch(/program host/);
    expect(died.ms).toBeLessThan(5_000);

    await until(() => host().restarts > restartsBefore, 15_000);
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
  });

  it.runIf(IDLE_POLICY_AVAILABLE)("keeps the idle CPU policy on a host the watchdog restarted", async () => {
    expect(host().restarts).toBeGreaterThan(0);
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
    const policies = hostThreadPolicies();
    expect(policies.filter((policy) => policy !== undefined).every((policy) => policy === SCHED_IDLE), `policies ${policies.join(", ")}`).toBe(true);
  });
});
