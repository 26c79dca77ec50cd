import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForJob } from "../helpers/jobs";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";
import { objectWaitMs } from "../../functions/jobs/job-after-wait";

/**
 * Background jobs in workerd. A probe job interrupted mid-way resumes without redoing finished
 * tools: the model is down when the job reaches the one tool that needs it, the job's run fails
 * after the first tool was stored, and the retry (exponential backoff) finishes the job, calling
 * the first tool no more. And clients wait on a job with `GET /v1/jobs/{id}?wait=` (long-poll),
 * shown with a tool whose answer the test holds back until it lets the job end.
 */

let service: TestService;
let model: ScriptedModel;
let tenant: { id: string; key: string };
const calls = new Map<string, number>();

/** A held-back tool answer: `reached` once the job calls the tool, which answers after `open()`. */
interface Gate {
  reached: Promise<void>;
  arrive(): void;
  opened: Promise<void>;
  open(): void;
}

function createGate(): Gate {
  let arrive = (): void => undefined;
  let open = (): void => undefined;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { reached, arrive: () => arrive(), opened, open: () => open() };
}

let gate = createGate();

beforeAll(async () => {
  model = createScriptedModel();
  service = await startService({
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname === "model.atc.test") return model.handle(request);
      if (url.hostname === "slow.example.com") {
        const held = gate;
        held.arrive();
        await held.opened;
        return Response.json({ pong: true });
      }
      calls.set(url.pathname, (calls.get(url.pathname) ?? 0) + 1);
      if (url.pathname === "/status") return Response.json({ healthy: true, version: "1.2.3" });
      if (url.pathname === "/define") {
        return url.searchParams.get("word") === "serendipity"
          ? // Larger than a run's trace keeps (4,000 characters): probing must still see all of it.
            Response.json({
              word: "serendipity",
              meanings: Array.from({ length: 100 }, (_, i) => ({ partOfSpeech: "noun", definition: `a happy accident, sense ${i}` })),
            })
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
        {
          name: "defineWord",
          method: "GET",
          url: "https://dict.example.com/define",
          description: "Dictionary definitions of an English word.",
          parameters: [{ name: "word", type: "string", in: "query", required: true }],
        },
      ],
    },
  });
});
afterAll(async () => service.dispose());

interface ProbeJob {
  status: string;
  attempts: number;
  lastError: string | null;
  result: { results: { tool: string; status: string; how?: string; resumed?: boolean }[] } | null;
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
    const job = await waitForJob<ProbeJob>(service, tenant.key, started.body.jobId);
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

describe("waiting on a job: GET /v1/jobs/{id}?wait=", () => {
  let waiter: { id: string; key: string };
  let tools = 0;

  beforeAll(async () => {
    waiter = await createTenant(service, "waiter");
  });

  /**
   * A probe job held at its one tool call until the test opens the returned gate. Each job probes
   * a new tool: a tool probed before for its current definition is not called again.
   */
  async function heldJob(): Promise<{ jobId: string; held: Gate }> {
    const tool = `slowPing${++tools}`;
    const imported = await service.json("POST", "/v1/tools/import", {
      key: waiter.key,
      body: {
        format: "list",
        tools: [{ name: tool, method: "GET", url: "https://slow.example.com/ping", description: "Answers pong, when it gets round to it." }],
      },
    });
    expect(imported.status).toBe(200);
    const held = (gate = createGate());
    const started = await service.json<{ jobId: string }>("POST", "/v1/probe", { key: waiter.key, body: { tools: [tool], chainIterations: 0 } });
    expect(started.status).toBe(202);
    await held.reached;
    return { jobId: started.body.jobId, held };
  }

  it("answers as soon as the job ends, not when the wait runs out", async () => {
    const { jobId, held } = await heldJob();
    let answered = false;
    const polled = service.json<ProbeJob>("GET", `/v1/jobs/${jobId}?wait=30`, { key: waiter.key }).then((res) => {
      answered = true;
      return res;
    });
    const meanwhile = await service.json<ProbeJob>("GET", `/v1/jobs/${jobId}`, { key: waiter.key });
    expect(meanwhile.body.status).toBe("running");
    expect(answered).toBe(false);
    const opened = performance.now();
    held.open();
    const job = await polled;
    expect(job.status).toBe(200);
    expect(job.body.status).toBe("succeeded");
    // The job's end woke the request: far sooner than the 30 s it asked for (a generous margin for a loaded machine).
    expect(performance.now() - opened).toBeLessThan(10_000);
  }, 60_000);

  it("answers with the job as it stands when the wait runs out", async () => {
    const { jobId, held } = await heldJob();
    const asked = performance.now();
    const job = await service.json<ProbeJob>("GET", `/v1/jobs/${jobId}?wait=1`, { key: waiter.key }).finally(() => held.open());
    const waited = performance.now() - asked;
    expect(job.status).toBe(200);
    expect(job.body.status).toBe("running");
    // The object waits all but the part left for the answer's way back (job-after-wait.ts).
    expect(waited).toBeGreaterThanOrEqual(objectWaitMs(1_000));
    expect(waited).toBeLessThan(15_000);
    expect((await waitForJob<ProbeJob>(service, waiter.key, jobId)).status).toBe("succeeded");
  });

  it("refuses a wait that is not 0 to 30 seconds, answers a finished job at once and an unknown one with 404", async () => {
    for (const wait of ["-1", "31", "soon"]) {
      const refused = await service.json<{ type: string; errors: { path: string }[] }>("GET", `/v1/jobs/job_whatever?wait=${wait}`, { key: waiter.key });
      expect(refused.status, wait).toBe(400);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
      expect(refused.body.type).toMatch(/\/invalid-request$/);
      expect(refused.body.errors.map((e) => e.path)).toEqual(["wait"]);
    }
    const { jobId, held } = await heldJob();
    held.open();
    await waitForJob(service, waiter.key, jobId);
    const asked = performance.now();
    const finished = await service.json<ProbeJob>("GET", `/v1/jobs/${jobId}?wait=30`, { key: waiter.key });
    expect(finished.body.status).toBe("succeeded");
    const unknown = await service.json("GET", "/v1/jobs/job_nothing?wait=30", { key: waiter.key });
    expect(unknown.status).toBe(404);
    // Another tenant's job is unknown too, and is not waited on either.
    const foreign = await service.json("GET", `/v1/jobs/${jobId}?wait=30`, { key: tenant.key });
    expect(foreign.status).toBe(404);
    expect(performance.now() - asked).toBeLessThan(10_000);
  });

  it("is documented in the OpenAPI document", async () => {
    const doc = await service.json<{ paths: Record<string, { get: { parameters: { name: string; in: string; schema: { maximum?: number } }[] } }> }>(
      "GET",
      "/openapi.json",
    );
    const wait = doc.body.paths["/v1/jobs/{id}"]?.get.parameters.find((p) => p.name === "wait");
    expect(wait).toMatchObject({ in: "query", schema: { maximum: 30 } });
  });
});
