import { quotaFamily } from "../quota-family";
import { createRoute, z, type OpenAPIHono, type RouteHandler } from "@hono/zod-openapi";
import { jobAfterWait, MAX_JOB_WAIT_SECONDS } from "../../jobs/job-after-wait";
import { validatePlaySettings } from "../../prompt-play";
import { tenantModelConfig } from "../../services/model-settings";
import { ToolName } from "../../tools/definition";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { Failure, isFailure } from "../../common/failures";

const ProbeRequest = z
  .object({
    tools: z.array(ToolName).min(1).max(1_000).optional().describe("Tools to probe; default: every tool without a current probed protocol"),
    samples: z.number().int().min(1).max(10).default(3).describe("Model samples per tool in instance discovery (N)"),
    chainIterations: z.number().int().min(0).max(10).default(4).describe("Chain-of-probing iterations (β)"),
  })
  .strict()
  .openapi("ProbeRequest");

const JobAccepted = z.object({ jobId: z.string(), tools: z.array(z.string()) }).openapi("JobAccepted");
const Job = z.record(z.string(), z.unknown()).openapi("Job", { description: "status, progress per tool (items), result, usage" });

const JobWait = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(MAX_JOB_WAIT_SECONDS)
    .default(0)
    .openapi({
      param: { name: "wait", in: "query" },
      example: 30,
      description: `Long-poll: answer as soon as the job has succeeded or failed, or with its state then, within this many seconds (at most ${MAX_JOB_WAIT_SECONDS}: the wait ends up to a quarter of it, at most 1 s, early so the answer arrives in time); 0 (default) answers at once`,
    }),
});

const OptimizeRequest = z
  .object({
    settings: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        "depth, beamWidth, expansionsPerNode, refineSteps (N_refine), invocationAttempts, demonstrations (M), budget: {maxModelCalls, maxTokens, demonstrationShare}; the paper's defaults: 5, 3, 3, 5",
      ),
  })
  .strict()
  .openapi("OptimizeRequest");

const optimizeRoute = createRoute({
  method: "post",
  path: "/tools/{name}/optimize",
  tags: ["prompt play"],
  summary: "Improve a tool's description and examples by tool play (Play2Prompt), in the background",
  security: tenantSecurity,
  middleware: quotaFamily("jobs"),
  request: { params: z.object({ name: ToolName }), body: jsonBody(OptimizeRequest) },
  responses: { 202: { description: "Job started", content: { "application/json": { schema: JobAccepted } } }, ...problems(400, 401, 404, 503) },
});

/** POST /tools/{name}/optimize: checked here (tool, model, settings) so that nothing fails in the background for a reason known now. */
const startOptimization: RouteHandler<typeof optimizeRoute, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const { settings } = c.req.valid("json");
  if ((await c.var.tenant.registry.getTool(name)) === undefined) throw new Failure("not-found", `No tool named ${name}.`);
  // Every step of tool play asks the model: refuse now, as runs do, rather than fail in the background.
  const model = await tenantModelConfig(c.env, c.var.tenantId, c.var.tenant);
  if (!model.ok) throw new Failure("not-configured", model.message);
  assertValidPlaySettings(settings);
  const job = await c.var.tenant.jobs.create("optimize", { tool: name, settings }, null);
  return c.json({ jobId: job.id, tools: [name] }, 202);
};

/** Refuses, as a problem naming each bad field under `settings.`, tool-play settings the job would refuse. */
function assertValidPlaySettings(settings: Record<string, unknown>): void {
  try {
    validatePlaySettings(settings);
  } catch (error) {
    if (isFailure(error, "invalid_play_settings"))
      throw new Failure(
        "invalid-request",
        error.message,
        (error.errors ?? []).map((i) => ({ path: `settings.${i.path}`, message: i.message })),
      );
    throw error;
  }
}

const probeRoute = createRoute({
  method: "post",
  path: "/probe",
  tags: ["probing"],
  summary: "Probe tools in the background (black-box probing, chain of probing)",
  security: tenantSecurity,
  middleware: quotaFamily("jobs"),
  request: { body: jsonBody(ProbeRequest) },
  responses: { 202: { description: "Job started", content: { "application/json": { schema: JobAccepted } } }, ...problems(400, 401) },
});

const startProbing: RouteHandler<typeof probeRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const tools = await toolsToProbe(c.var.tenant, body.tools);
  if (tools.length === 0) throw new Failure("invalid-request", "Every tool already has a probed protocol for its current definition.");
  const job = await c.var.tenant.jobs.create("probe", { tools, samples: body.samples, chainIterations: body.chainIterations, reason: "api" }, null);
  return c.json({ jobId: job.id, tools }, 202);
};

/** The tools asked for (each registered, sorted, once), or by default every tool unprobed or changed since its current protocol. */
async function toolsToProbe(tenant: AppEnv["Variables"]["tenant"], asked: readonly string[] | undefined): Promise<string[]> {
  const registered = new Map((await tenant.registry.listTools()).map((t) => [t.definition.name, t.hash]));
  if (asked !== undefined) {
    const unknown = asked.filter((name) => !registered.has(name));
    if (unknown.length > 0) throw new Failure("invalid-request", `Unknown tools: ${unknown.join(", ")}.`);
    return [...new Set(asked)].sort();
  }
  // Unprobed or changed: no current protocol, or one made for an older definition.
  const current = new Map((await tenant.protocols.currentMany([...registered.keys()])).map((p) => [p.tool, p.hash]));
  return [...registered]
    .filter(([name, hash]) => current.get(name) !== hash)
    .map(([name]) => name)
    .sort();
}

const jobRoute = createRoute({
  method: "get",
  path: "/jobs/{id}",
  tags: ["jobs"],
  summary: "A job's status, per-tool progress and token usage; with `wait`, once the job has ended",
  security: tenantSecurity,
  request: { params: z.object({ id: z.string().max(100) }), query: JobWait },
  responses: { 200: { description: "The job", content: { "application/json": { schema: Job } } }, ...problems(400, 401, 404) },
});

const readJob: RouteHandler<typeof jobRoute, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { wait } = c.req.valid("query");
  const jobs = c.var.tenant.jobs;
  const job = await jobAfterWait({ get: (jobId) => jobs.get(jobId), waitFor: (jobId, ms) => jobs.waitFor(jobId, ms) }, id, wait * 1_000);
  if (job === undefined) throw new Failure("not-found", `No job ${id}.`);
  return c.json(job as unknown as Record<string, unknown>, 200);
};

const jobListRoute = createRoute({
  method: "get",
  path: "/jobs",
  tags: ["jobs"],
  summary: "Recent jobs",
  security: tenantSecurity,
  request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }) },
  responses: {
    200: { description: "Jobs, newest first", content: { "application/json": { schema: z.object({ jobs: z.array(z.record(z.string(), z.unknown())) }) } } },
    ...problems(401),
  },
});

const listJobs: RouteHandler<typeof jobListRoute, AppEnv> = async (c) => c.json({ jobs: await c.var.tenant.jobs.list(c.req.valid("query").limit) }, 200);

/** Background jobs: start probing or prompt optimisation, read any job's progress. */
export function registerJobEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(optimizeRoute, startOptimization);
  app.openapi(probeRoute, startProbing);
  app.openapi(jobRoute, readJob);
  app.openapi(jobListRoute, listJobs);
}
