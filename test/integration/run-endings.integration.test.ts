import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * How runs end when the model cannot help or its endpoint misbehaves (issue 46): a refusal is not
 * revised, an empty answer is not a success, a failed run says why and names itself, and a model
 * endpoint that stalls or asks for a long wait cannot hold a run past its deadline.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
/** Each model call's total deadline in this service (MODEL_TIMEOUT_MS). */
const MODEL_TIMEOUT_MS = 10_000;
const STALL_MARKER = "stall-after-headers";

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };

const fence = (code: string) => `\`\`\`ts\n${code}\n\`\`\``;
const TOOLS = ["getSearchPerson", "getPersonPersonIdMovieCredits"];

/** Headers at once, then a body that never ends. */
function stalledAnswer(): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"id":"chatcmpl-1","choices":['));
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    bindings: { MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS) },
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname !== "model.atc.test") return Response.json({ ok: true });
      if ((await request.clone().text()).includes(STALL_MARKER)) return stalledAnswer();
      return model.handle(request);
    },
  });
  tenant = await createTenant(service, "run-endings");
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
});
afterAll(async () => service.dispose());

interface RunBody {
  id: string;
  status: string;
  error?: { code: string; message: string };
  answer?: unknown;
  attempts: { program: string; error?: { kind?: string; limit?: string; message: string }; trace: unknown[] }[];
  modelCalls: { purpose: string }[];
}

interface ProblemBody {
  type: string;
  status: number;
  detail: string;
}

const run = (task: string) => service.json<RunBody & ProblemBody>("POST", "/v1/runs", { key: tenant.key, body: { task, tools: TOOLS } });

/** The newest stored run of the tenant, read back whole. */
async function newestRun(): Promise<RunBody> {
  const list = await service.json<{ runs: { id: string }[] }>("GET", "/v1/runs", { key: tenant.key });
  const id = list.body.runs[0]?.id ?? "";
  return (await service.json<RunBody>("GET", `/v1/runs/${id}`, { key: tenant.key })).body;
}

describe("a run the model cannot help with", () => {
  it("is not revised when the model says it cannot: one model call, a top-level error naming the run", async () => {
    model.reset();
    const refusal = 'throw new Error("The demo model cannot answer this task: it writes programs only for questions about films.");';
    model.on({ name: "refuse", answer: { text: fence(refusal) } });
    const res = await run("What is the weather in Paris?");
    expect(res.status).toBe(201);
    expect(res.body.status).toBe("failed");
    expect(res.body.modelCalls).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(res.body.error?.code).toBe("model_declined");
    expect(res.body.error?.message).toContain(res.body.id);
    expect(res.body.error?.message).toContain("cannot answer this task");
  });

  it("ends no_answer, not succeeded, when the program finds nothing", async () => {
    model.reset();
    const program = [
      'const found = await tools.getSearchPerson({ query: "Nobody Atall" });',
      'if (found.results?.[0] === undefined) return { answer: null, note: "The search found nothing named Nobody Atall." };',
      "return { answer: found.results[0].name };",
    ].join("\n");
    model.on({ name: "generate", answer: { text: fence(program) } });
    const res = await run("How many movies has Nobody Atall acted in?");
    expect(res.status).toBe(201);
    expect(res.body.status).toBe("no_answer");
    expect(res.body.error?.code).toBe("no_answer");
    expect(res.body.error?.message).toContain(res.body.id);
    expect(res.body.modelCalls).toHaveLength(1);
  });
});

describe("a model endpoint that misbehaves", () => {
  it("keeps attempt 1 when the revise call then fails, and the problem names the run", async () => {
    model.reset();
    model.on({ name: "revise-down", match: (r) => r.lastUserMessage.includes("Attempt 1"), answer: { status: 500 } });
    model.on({
      name: "generate",
      answer: { text: fence('const found = await tools.getSearchPerson({ query: "Bradley Cooper" });\nreturn found.result[0].id;') },
    });
    const res = await run("Which id has Bradley Cooper?");
    expect(res.status).toBe(502);
    const stored = await newestRun();
    expect(res.body.detail).toContain(stored.id);
    expect(stored.status).toBe("failed");
    expect(stored.attempts).toHaveLength(1);
    expect(stored.attempts[0]?.program).toContain("found.result[0].id");
    expect(stored.attempts[0]?.trace).toHaveLength(1);
    expect(stored.error?.code).toBe("model:server_error");
    expect(stored.error?.message).toContain(stored.id);
  });

  it("does not hold a run for a 100 s Retry-After: the service's 429 says 100 s at once", async () => {
    model.reset();
    model.on({ name: "busy", answer: { status: 429, headers: { "retry-after": "100" } } });
    const started = Date.now();
    const res = await run("How many movies has Bradley Cooper acted in?");
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("100");
    expect(model.requests).toHaveLength(1);
    expect(res.body.detail).toContain((await newestRun()).id);
  });

  it("fails a run whose model stalls after its headers within the call's deadline", async () => {
    const started = Date.now();
    const res = await run(`Who directed ${STALL_MARKER}?`);
    // The deadline is 10 s; the bound leaves room for a slow shared machine, not for a hang.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(res.status).toBe(502);
    expect(res.body.detail).toContain("timeout");
    const stored = await newestRun();
    expect(stored.error?.code).toBe("model:timeout");
    expect(res.body.detail).toContain(stored.id);
  }, 120_000);
});

describe("a program's CPU budget", () => {
  it("lets 550,000 empty loop iterations between two tool calls through, and still stops a runaway", async () => {
    model.reset();
    const program = [
      'await tools.getSearchPerson({ query: "Bradley Cooper" });',
      "let i = 0;",
      "for (; i < 550000; i++) {}",
      'await tools.getSearchPerson({ query: "Christopher Nolan" });',
      "return { answer: i };",
    ].join("\n");
    model.on({ name: "generate", answer: { text: fence(program) } });
    const res = await run("Count to 550,000 between two searches");
    expect(res.status).toBe(201);
    expect(res.body.attempts[0]?.error, JSON.stringify(res.body.attempts[0]?.error)).toBeUndefined();
    expect(res.body).toMatchObject({ status: "succeeded", answer: { answer: 550_000 } });

    model.reset();
    model.on({ name: "generate", answer: { text: fence('await tools.getSearchPerson({ query: "x" });\nwhile (true) {}') } });
    const runaway = await service.json<RunBody>("POST", "/v1/runs", { key: tenant.key, body: { task: "Spin", tools: TOOLS, maxAttempts: 1 } });
    expect(runaway.body.attempts[0]?.error).toMatchObject({ kind: "cpu_budget", limit: "stretchBudget" });
  });
});
