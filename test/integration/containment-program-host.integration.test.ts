import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { fetch as miniflareFetch, type WebSocket as MfWebSocket } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRun } from "../../functions/chain/stored-run";
import {
  parseFromHost,
  PROGRAM_HOST_SECRET_HEADER,
  type AnswerMessage,
  type FromHostMessage,
  type RunMessage,
} from "../../functions/sandbox/program-host/messages";
import { pidListeningOn, SCHED_IDLE, threadPolicy, threadsOf } from "../../scripts/program-host-process.mjs";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, healthLatency, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Programs run in the program host, a workerd process apart from the service's: the service
 * answers their tool calls, enforces the deadline with its own timer even when the host is
 * frozen, and the watchdog brings a dead or frozen host back, failing the attempts in flight with
 * a named limit.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
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
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "list", tools: [{ name: "slow", method: "GET", url: "https://slow.example.com/wait" }] },
  });
});
afterAll(async () => service.dispose());

function host() {
  const programHost = service.programHost;
  if (programHost === undefined) throw new Error("the test service has no program host");
  return programHost;
}

async function run(program: string, limits: Record<string, number> = {}, tools = ["getGenreMovieList"]) {
  model.reset();
  model.on({ name: "program", answer: { text: `\`\`\`ts\n${program}\n\`\`\`` } });
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

/**
 * A test that waits for a watchdog restart: about 4 s of unanswered checks, then a new workerd,
 * which on a loaded 2-core machine takes several seconds more.
 */
const RESTART_TEST_TIMEOUT_MS = 90_000;
/** Linux's number for the normal (SCHED_OTHER) policy, as /proc reports it. */
const SCHED_OTHER = 0;

/** Where the host's threads can be put under SCHED_IDLE: Linux with util-linux's chrt. */
const IDLE_POLICY_AVAILABLE = process.platform === "linux" && spawnSync("chrt", ["--version"]).status === 0;

/** The scheduling policy of every thread of the program host's process (/proc). */
function hostThreadPolicies(): (number | undefined)[] {
  const pid = pidListeningOn(host().port);
  if (pid === undefined) throw new Error(`no process listens on ${host().address}`);
  return threadsOf(pid).map((tid) => threadPolicy(pid, tid));
}

/** One attempt's socket to the program host, spoken to directly as the service would. */
interface RawAttempt {
  send(message: RunMessage): void;
  close(): void;
  /** Every message the host sent so far, with the time (epoch ms) it arrived. */
  received: { message: FromHostMessage; at: number }[];
  /** The host's `result`, once it comes (with its arrival time). */
  result: Promise<{ message: FromHostMessage; at: number }>;
}

/** Open an attempt's socket; every `call` is answered at once with a genre list, as the service would. */
async function openAttempt(): Promise<RawAttempt> {
  const response = await miniflareFetch(`http://${host().address}/attempt`, { headers: { upgrade: "websocket", [PROGRAM_HOST_SECRET_HEADER]: host().secret } });
  const socket: MfWebSocket | null = response.webSocket;
  if (socket === null) throw new Error(`the program host refused the attempt (HTTP ${response.status})`);
  socket.accept();
  const received: RawAttempt["received"] = [];
  const result = new Promise<{ message: FromHostMessage; at: number }>((resolve, reject) => {
    socket.addEventListener("message", (event) => {
      const message = parseFromHost(event.data);
      if (message === undefined) return reject(new Error(`not a program host message: ${String(event.data)}`));
      const arrival = { message, at: Date.now() };
      received.push(arrival);
      if (message.type === "result") return resolve(arrival);
      const trace = { tool: message.name, arguments: message.args, sent: true, replayed: false, ok: true, durationMs: 0, bytes: 0, truncated: false };
      socket.send(
        JSON.stringify({ type: "answer", id: message.id, answer: { ok: true, value: { genres: [{ id: 1, name: "Drama" }] }, trace } } satisfies AnswerMessage),
      );
    });
    socket.addEventListener("close", () => reject(new Error("the program host closed the attempt without a result")));
  });
  // A test that ends with the socket closed on purpose never reads the result.
  result.catch(() => undefined);
  return { send: (message) => socket.send(JSON.stringify(message)), close: () => socket.close(1000, "test"), received, result };
}

/** A run message as the service builds it (host/isolate-executor.ts), for `program` with `deadlineMs` ending at `deadlineAt`. */
function runMessage(program: string, deadlineMs: number, deadlineAt: number, limits: RunMessage["request"]["limits"] = {}): RunMessage {
  const tools = ["getGenreMovieList"];
  return {
    type: "run",
    tenantId: "program-host-raw",
    mode: "tenant",
    deadlineMs,
    deadlineAt,
    request: {
      program,
      tools,
      limits: { timeoutMs: deadlineMs, ...limits },
      calls: { allowed: tools, replay: [], timeoutMs: 5_000, maxResponseBytes: 1_000_000 },
    },
  };
}

/**
 * Computes for `ms` of wall-clock time in one stretch, holding the host's thread, and returns when
 * it began; after one tool call first with `callFirst` (the call says it has started).
 */
function holdThreadProgram(ms: number, callFirst = true): string {
  return `${callFirst ? "await tools.getGenreMovieList({});\n" : ""}const began = Date.now();\nwhile (Date.now() < began + ${ms}) {}\nreturn began;`;
}
/**
 * Interrupt-check budgets out of the way, so that the thread is held for the whole stretch: a 120 s
 * deadline's stretch fuel (600 M units) lasts over a second even at the fastest rate measured.
 */
const HOLD_LIMITS = { stretchBudget: 1e9, totalBudget: 1e9 };
const HOLD_DEADLINE_MS = 120_000;

/** The program host's /health latency, or `timeoutMs` when it did not answer in that time (its thread is held). */
async function hostHealthMs(timeoutMs: number): Promise<number> {
  const started = Date.now();
  try {
    await (await fetch(`http://${host().address}/health`, { signal: AbortSignal.timeout(timeoutMs) })).arrayBuffer();
    return Date.now() - started;
  } catch {
    return timeoutMs;
  }
}

/** Wait until the host's thread is held (its /health does not answer within 150 ms). */
async function untilHostBusy(): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) if ((await hostHealthMs(150)) >= 150) return;
  throw new Error("the program host's thread was never held");
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
    expect(
      policies.filter((policy) => policy !== undefined).every((policy) => policy === SCHED_IDLE),
      `policies ${policies.join(", ")}`,
    ).toBe(true);
  });

  it("runs nothing without the shared secret, and only over a WebSocket", async () => {
    const upgrade = { upgrade: "websocket", connection: "upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
    expect(await attemptStatus(upgrade)).toBe(403);
    expect(await attemptStatus({ ...upgrade, [PROGRAM_HOST_SECRET_HEADER]: `${host().secret}x` })).toBe(403);
    expect(await attemptStatus({ ...upgrade, [PROGRAM_HOST_SECRET_HEADER]: host().secret.slice(1) })).toBe(403);
    expect(await attemptStatus({ [PROGRAM_HOST_SECRET_HEADER]: host().secret })).toBe(426);
  });

  it("starts nothing whose absolute deadline has passed, and answers a deadline failure at once", async () => {
    const attempt = await openAttempt();
    const sentAt = Date.now();
    // It would call a tool first and then return 1; neither may happen.
    attempt.send(runMessage(HARMLESS, 2_000, sentAt - 1));
    const { message, at } = await attempt.result;
    expect(attempt.received.map((m) => m.message.type)).toEqual(["result"]);
    expect(message.type === "result" && message.outcome.result).toMatchObject({
      ok: false,
      error: { kind: "timeout", limit: "deadlineMs" },
      stats: { toolCalls: 0 },
    });
    expect(at - sentAt).toBeLessThan(MARGIN_MS);
  });

  it("does not start a run whose deadline passed while another program held the host's thread", async () => {
    const [holder, late] = [await openAttempt(), await openAttempt()];
    holder.send(runMessage(holdThreadProgram(1_000), HOLD_DEADLINE_MS, Date.now() + HOLD_DEADLINE_MS, HOLD_LIMITS));
    await until(() => holder.received.length > 0, 10_000);
    await untilHostBusy();
    // Sent while the holder computes, with 200 ms to go: by the time the host reads it, none is left.
    const sentAt = Date.now();
    late.send(runMessage(HARMLESS, 200, sentAt + 200));
    const held = await holder.result;
    const { message, at } = await late.result;

    const heldOutcome = held.message.type === "result" ? held.message.outcome.result : undefined;
    expect(heldOutcome?.ok, JSON.stringify(heldOutcome)).toBe(true);
    // The late run really was sent while the holder held the thread, and read after its deadline.
    expect(heldOutcome?.ok === true && (heldOutcome.answer as number)).toBeLessThan(sentAt);
    expect(held.at).toBeGreaterThan(sentAt + 200);
    // Nothing of it ran (its first act would have been a tool call), and it ended with the holder,
    // not a fresh 200 ms after it.
    expect(late.received.map((m) => m.message.type)).toEqual(["result"]);
    expect(message.type === "result" && message.outcome.result).toMatchObject({ ok: false, error: { kind: "timeout" }, stats: { toolCalls: 0 } });
    expect(at - held.at).toBeLessThan(200);
  });

  it("gives a program only what is left of its absolute deadline, not the relative timeout it was sent with", async () => {
    const attempt = await openAttempt();
    const sentAt = Date.now();
    // As if the service had computed `timeoutMs` 3 s before the program could start: 300 ms are left.
    attempt.send(runMessage("for (;;) await tools.getGenreMovieList({});", 3_000, sentAt + 300, { timeoutMs: 3_000, maxToolCalls: 100_000 }));
    const { message, at } = await attempt.result;
    expect(message.type === "result" && message.outcome.result).toMatchObject({ ok: false, error: { kind: "timeout", limit: "timeoutMs" } });
    expect(attempt.received.length).toBeGreaterThan(1);
    expect(at).toBeGreaterThanOrEqual(sentAt + 300);
    expect(at - sentAt).toBeLessThan(300 + MARGIN_MS);
  });

  it("does not start a run whose socket the service closed before the host could start it", async () => {
    const [holder, abandoned] = [await openAttempt(), await openAttempt()];
    holder.send(runMessage(holdThreadProgram(1_000), HOLD_DEADLINE_MS, Date.now() + HOLD_DEADLINE_MS, HOLD_LIMITS));
    await until(() => holder.received.length > 0, 10_000);
    await untilHostBusy();
    // A run with two minutes to go, given up by the service (its socket closed) before the host reads
    // it: had it started, it would hold the host's thread for over a second (no tool call first, which
    // would fail at once on the closed socket).
    abandoned.send(runMessage(holdThreadProgram(1_500, false), HOLD_DEADLINE_MS, Date.now() + HOLD_DEADLINE_MS, HOLD_LIMITS));
    abandoned.close();
    await holder.result;
    const latencies: number[] = [];
    const watchUntil = Date.now() + 800;
    while (Date.now() < watchUntil) latencies.push(await hostHealthMs(1_000));
    expect(Math.max(...latencies), latencies.join(", ")).toBeLessThan(500);
    expect(abandoned.received).toEqual([]);
  });

  it("fails an attempt at its deadline by the service's own timer while the host is frozen; the watchdog restarts it", {
    timeout: RESTART_TEST_TIMEOUT_MS,
  }, async () => {
    const restartsBefore = host().restarts;
    const restarted = host().nextRestart();
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

    await restarted;
    expect(host().restarts).toBe(restartsBefore + 1);
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
  });

  it("fails the attempts in flight with a named limit when the host dies; the watchdog restarts it", { timeout: RESTART_TEST_TIMEOUT_MS }, async () => {
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
    const restarted = host().nextRestart();
    await host().kill();
    release();
    const died = await pending;
    expect(died.status, JSON.stringify(died.body)).toBe(201);
    const error = died.body.attempts[0]?.error;
    expect(died.body.status).toBe("failed");
    expect(error?.limit, JSON.stringify(error)).toBe("programHost");
    expect(error?.message).toMatch(/program host/);
    expect(died.ms).toBeLessThan(5_000);

    await restarted;
    expect(host().restarts).toBe(restartsBefore + 1);
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
  });

  it.runIf(IDLE_POLICY_AVAILABLE)(
    "puts a host it kills back under the normal CPU policy first, so that it ends at once on a busy machine",
    { timeout: RESTART_TEST_TIMEOUT_MS },
    async () => {
      const restarted = host().nextRestart();
      // Frozen, as the watchdog finds a livelocked host; its kill is the one the watchdog's restart does.
      host().freeze();
      const killed = host().kill();
      // Read before the process ends (the kill signal goes out after the call returns).
      const policiesAtKill = hostThreadPolicies();
      await killed;
      await restarted;
      expect(policiesAtKill.length).toBeGreaterThan(0);
      expect(
        policiesAtKill.every((policy) => policy === SCHED_OTHER),
        `policies ${policiesAtKill.join(", ")}`,
      ).toBe(true);
      expect((await run(HARMLESS)).body.status).toBe("succeeded");
    },
  );

  it.runIf(IDLE_POLICY_AVAILABLE)("keeps the idle CPU policy on a host the watchdog restarted", async () => {
    expect(host().restarts).toBeGreaterThan(0);
    expect((await run(HARMLESS)).body.status).toBe("succeeded");
    const policies = hostThreadPolicies();
    expect(
      policies.filter((policy) => policy !== undefined).every((policy) => policy === SCHED_IDLE),
      `policies ${policies.join(", ")}`,
    ).toBe(true);
  });
});
