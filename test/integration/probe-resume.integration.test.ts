import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * A probe job interrupted mid-way resumes without redoing finished tools: the model is down when
 * the job reaches the one tool that needs it, the job's run fails after the first tool was
 * stored, and the retry (exponential backoff) finishes the job, calling the first tool no more.
 */

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };
const calls = new Map<string, number>();

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname === "model.atc.test") return model.handle(request);
      calls.set(url.pathname, (calls.get(url.pathname) ?? 0) + 1);
      if (url.pathname === "/status") return Response.json({ healthy: true, version: "1.2.3" });
      if (url.pathname === "/define") {
        return url.searchParams.get("word") === "serendipity"
          ? // Larger than a run's trace keeps (4,000 characters): probing must still see all of it.
            Response.json({ word: "serendipity", meanings: Array.from({ length: 100 }, (_, i) => ({ partOfSpeech: "noun", definition: `a happy accident, sense ${i}` })) })
          : Response.json({ error: "word not in the dictionary" }, { status: 404 });
      }
      return new Response("not found", { status: 404 });
    },
  });
  tenant = await createTenant(service, "resumer");
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: {
      format: "list",
      tools: [
        { name: "checkStatus", method: "GET", url: "https://dict.example.com/status", description: "Health of the dictionary service." },
        { name: "defineWord", method: "GET", url: "https://dict.example.com/define", description: "Dictionary definitions of an English word.", parameters: [{ name: "word", type: "string", in: "query", required: true }] },
      ],
    },
  });
});
afterAll(async () => service.dispose());

async function waitForJob(id: string) {
  for (let i = 0; i < 600; i++) {
    const job = await service.json<{ status: string; attempts: number; lastError: string | null; result: { results: { tool: string; status: string; how?: string; resumed?: boolean }[] } | null }>("GET", `/v1/jobs/${id}`, { key: tenant.key });
    if (job.body.status === "succeeded" || job.body.status === "failed") return job.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the probe job did not finish in 60 s");
}

describe("probe jobs", () => {
  it("resume after an interruption without calling finished tools again", async () => {
    // The model is down for the first attempt (the client's own retries included), then answers.
    model.on({ name: "outage", answer: { status: 503, body: { error: { message: "overloaded" } } }, times: 3 });
    model.on({
      name: "probe",
      match: /defineWord/,
      answer: { text: 'Your query: "What does serendipity mean?"\nTest code:\n```ts\nreturn await tools.defineWord({ word: "serendipity" });\n```' },
    });
    const started = await service.json<{ jobId: string }>("POST", "/v1/probe", { key: tenant.key, body: { chainIterations: 0, samples: 2 } });
    expect(started.status).toBe(202);
    const job = await waitForJob(started.body.jobId);
    expect(job.status).toBe("succeeded");
    expect(job.attempts).toBe(2);
    expect(job.lastError).toMatch(/model call/);
    const byTool = new Map(job.result?.results.map((r) => [r.tool, r]));
    expect(byTool.get("checkStatus"), JSON.stringify(job.result)).toMatchObject({ status: "probed", how: "direct", resumed: true });
    expect(byTool.get("defineWord")).toMatchObject({ status: "probed", how: "model" });
    expect(calls.get("/status")).toBe(1);
    const protocol = await service.json<{ protocol: { responseSchema: unknown } }>("GET", "/v1/tools/defineWord/protocol", { key: tenant.key });
    expect(protocol.body.protocol.responseSchema).toEqual({ word: "str", meanings: [{ partOfSpeech: "str", definition: "str" }] });
  });
});
