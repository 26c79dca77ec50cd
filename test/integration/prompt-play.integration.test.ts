import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptedChatRequest, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The paper's Figure 2 through the whole service: a tool whose documentation names
 * `start_date`/`end_date` (required) while it accepts `from`/`to` (optional) and rejects the old
 * names with an error message. The scripted model plays the optimiser and the base model; the
 * tool answers for real (through the safe-call path) from this test's outbound handler.
 */

const RENAMED = "Use 'from' and 'to' (YYYY-MM-DD); both are optional.";
const VARIANTS = [{ from: "2024-01-01", to: "2024-01-31" }, { from: "2023-06-01", to: "2023-06-30", base: "USD" }, { base: "GBP" }];

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };
let toolCalls = 0;

function rates(url: URL): Response {
  toolCalls += 1;
  const old = ["start_date", "end_date"].find((k) => url.searchParams.has(k));
  if (old !== undefined) return Response.json({ error: `Unknown parameter '${old}'. ${RENAMED}` }, { status: 400 });
  return Response.json({ base: url.searchParams.get("base") ?? "EUR", from: url.searchParams.get("from") ?? "latest", to: url.searchParams.get("to") ?? "latest", rates: { USD: 1.08 } });
}

const namesFromTo = (text: string): boolean => text.includes("`from`") && text.includes("`to`");

/** The optimisation model and the base model, as pure functions of the prompt. */
function answer(request: ScriptedChatRequest): string {
  const system = request.systemPrompt;
  const text = request.lastUserMessage;
  if (text.startsWith("You are using the tool")) {
    // Base model: it follows the description it was given; the query carries the intended call.
    const intended = JSON.parse(/User query: Rates for (\{.*\})\?/.exec(text)?.[1] ?? "{}") as Record<string, string>;
    const description = /Its documentation:\n([\s\S]*?)\nDocumented argument types/.exec(text)?.[1] ?? "";
    if (namesFromTo(description) || !("from" in intended)) return JSON.stringify({ arguments: intended });
    const { from, to, ...rest } = intended;
    return JSON.stringify({ arguments: { start_date: from, end_date: to, ...rest } });
  }
  if (system.startsWith("You are exploring a software tool")) {
    const k = Number(/Exploration (\d+) of/.exec(text)?.[1] ?? "1");
    if (!text.includes("Use 'from' and 'to'") && !text.includes('"from"')) return JSON.stringify({ arguments: { start_date: "2024-01-01", end_date: "2024-01-31" } });
    return JSON.stringify({ arguments: VARIANTS[(k - 1) % 3] });
  }
  if (system.startsWith("You check whether a tool call worked")) return '{"valid": true, "reason": "rates returned"}';
  if (system.startsWith("You write realistic examples")) return JSON.stringify({ query: `Rates for ${/Invocation: (.*)/.exec(text)?.[1] ?? "{}"}?` });
  if (system.startsWith("You are an assistant that called a tool")) return '{"answer": "1 EUR was 1.08 USD."}';
  if (system.startsWith("You grade examples")) return '{"score": 8, "reason": "clear"}';
  if (system.startsWith("You give feedback")) return '{"reflection": "Try another period or base currency."}';
  if (system.startsWith("You diagnose why")) {
    return JSON.stringify({
      reflection: text.includes("Use 'from' and 'to'")
        ? "The tool rejects start_date/end_date: it takes optional `from` and `to` (YYYY-MM-DD). Name those in the description."
        : "Describe the date parameters precisely.",
    });
  }
  if (system.startsWith("You improve tool descriptions")) {
    const feedback = /Feedback from watching[^\n]*\n([\s\S]*?)\n\nVariant/.exec(text)?.[1] ?? "";
    if (feedback.includes("`from`")) return JSON.stringify({ description: "Historical exchange rates for a period: pass the optional `from` and `to` dates (YYYY-MM-DD) and an optional base currency." });
    return JSON.stringify({ description: "Get historical exchange rates between start_date and end_date (YYYY-MM-DD)." });
  }
  return "{}";
}

beforeAll(async () => {
  model = createScriptedModel({ rules: [{ name: "figure2", answer: (request: ScriptedChatRequest) => ({ text: answer(request) }) }] });
  service = await startService({
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname === "model.atc.test") return model.handle(request);
      if (url.hostname === "rates.example.com") return rates(url);
      return new Response("not found", { status: 404 });
    },
  });
  tenant = await createTenant(service, "player");
  const imported = await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: {
      format: "list",
      tools: [
        {
          name: "getHistoricalRates",
          method: "GET",
          url: "https://rates.example.com/history",
          description: "Get historical exchange rates between start_date and end_date.",
          parameters: [
            { name: "start_date", in: "query", required: true, schema: { type: "string" } },
            { name: "end_date", in: "query", required: true, schema: { type: "string" } },
            { name: "base", in: "query", required: false, schema: { type: "string" } },
          ],
        },
      ],
    },
  });
  expect(imported.status).toBe(200);
});
afterAll(async () => service.dispose());

interface Job {
  status: string;
  result: { improved: boolean; version: number | null; bestDescription: string; bestScore: number; originalScore: number; usage: { calls: number; totalTokens: number } } | null;
  progress: { beams?: { phase: string; depth: number }[] };
  lastError: string | null;
}

async function waitForJob(id: string): Promise<Job> {
  for (let i = 0; i < 1200; i++) {
    const job = await service.json<Job>("GET", `/v1/jobs/${id}`, { key: tenant.key });
    if (job.body.status === "succeeded" || job.body.status === "failed") return job.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the optimisation job did not finish in 120 s");
}

describe("Play2Prompt jobs", () => {
  it("finds a description that names from/to and solves more demonstrations than the original", async () => {
    const started = await service.json<{ jobId: string }>("POST", "/v1/tools/getHistoricalRates/optimize", {
      key: tenant.key,
      body: { settings: { depth: 2, beamWidth: 2, expansionsPerNode: 2, refineSteps: 1 } },
    });
    expect(started.status).toBe(202);
    const job = await waitForJob(started.body.jobId);
    expect(job.status, JSON.stringify(job.lastError)).toBe("succeeded");
    expect(job.result?.improved).toBe(true);
    expect(job.result?.bestDescription).toMatch(/`from`.*`to`/);
    expect(job.result?.bestScore ?? 0).toBeGreaterThan(job.result?.originalScore ?? 1);
    expect(job.result?.usage.calls).toBeGreaterThan(0);
    expect(job.progress.beams?.some((b) => b.phase === "descriptions")).toBe(true);
    expect(toolCalls).toBeGreaterThan(0);

    // The new description is a protocol version, current, and what runs will now see.
    const current = await service.json<{ version: number; source: string; protocol: { description: string } }>("GET", "/v1/tools/getHistoricalRates/protocol", { key: tenant.key });
    expect(current.body).toMatchObject({ source: "optimize", version: job.result?.version });
    expect(current.body.protocol.description).toBe(job.result?.bestDescription);
  });

  it("pins and rolls back protocol versions", async () => {
    const versions = await service.json<{ versions: { version: number }[] }>("GET", "/v1/tools/getHistoricalRates/protocol/versions", { key: tenant.key });
    const latest = versions.body.versions.at(-1)?.version ?? 0;
    expect(latest).toBeGreaterThan(0);
    const missing = await service.json("PUT", "/v1/tools/getHistoricalRates/protocol/pin", { key: tenant.key, body: { version: latest + 10 } });
    expect(missing.status).toBe(404);
    const pinned = await service.json<{ version: number; pinned: boolean }>("PUT", "/v1/tools/getHistoricalRates/protocol/pin", { key: tenant.key, body: { version: latest } });
    expect(pinned.body).toMatchObject({ version: latest, pinned: true });
    const unpinned = await service.json<{ pinned: boolean }>("PUT", "/v1/tools/getHistoricalRates/protocol/pin", { key: tenant.key, body: { version: null } });
    expect(unpinned.body.pinned).toBe(false);
  });

  it("rejects unknown tools and absurd settings", async () => {
    expect((await service.json("POST", "/v1/tools/noSuchTool/optimize", { key: tenant.key, body: {} })).status).toBe(404);
    const absurd = await service.json<{ errors: { path: string }[] }>("POST", "/v1/tools/getHistoricalRates/optimize", { key: tenant.key, body: { settings: { depth: 1000, beamWidth: 0 } } });
    expect(absurd.status).toBe(400);
    expect(absurd.body.errors.map((e) => e.path).join(" ")).toMatch(/depth|beamWidth/);
  });
});
