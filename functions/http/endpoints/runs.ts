import { quotaFamily } from "../quota-family";
import { createRoute, z, type OpenAPIHono, type RouteHandler } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { startRun, type RunSettings } from "../../services/start-run";
import { PROGRAM_CPU_CEILING, RUN_DEFAULTS, RUN_LIMITS } from "../../common/run-defaults";
import { ToolName } from "../../tools/definition";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { toProblem } from "../app";
import { problemDocument } from "../problem";
import { Failure } from "../../common/failures";
import { withRunSlot } from "../run-slot";

const Limits = z
  .object({
    maxToolCalls: z.number().int().min(1).max(200).default(RUN_LIMITS.maxToolCalls),
    deadlineMs: z.number().int().min(1_000).max(120_000).default(RUN_LIMITS.deadlineMs).describe("Wall-clock limit of one attempt"),
    toolTimeoutMs: z.number().int().min(100).max(30_000).default(RUN_LIMITS.toolTimeoutMs),
    maxToolResponseBytes: z
      .number()
      .int()
      .min(1_024)
      .max(4 * 1024 * 1024)
      .default(RUN_LIMITS.maxToolResponseBytes),
    memoryLimitBytes: z
      .number()
      .int()
      .min(8 * 1024 * 1024)
      .max(128 * 1024 * 1024)
      .default(RUN_LIMITS.memoryLimitBytes),
    stretchBudget: z
      .number()
      .int()
      .min(10)
      .max(PROGRAM_CPU_CEILING.stretchBudget)
      .default(RUN_LIMITS.stretchBudget)
      .describe("CPU budget between two tool results, in interrupt checks (10,000 polls each; an empty loop polls twice an iteration)"),
    totalBudget: z
      .number()
      .int()
      .min(10)
      .max(PROGRAM_CPU_CEILING.totalBudget)
      .default(RUN_LIMITS.totalBudget)
      .describe("CPU budget of one attempt, in interrupt checks"),
  })
  .strict();

export const CreateRun = z
  .object({
    task: z.string().trim().min(1).max(10_000),
    tools: z.array(ToolName).min(1).max(100).optional().describe("Candidate tools; default: chosen by routing"),
    maxAttempts: z.number().int().min(1).max(5).default(RUN_DEFAULTS.maxAttempts).describe("Programs per run, first one included (the paper's α)"),
    feedbackTokenBudget: z
      .number()
      .int()
      .min(200)
      .max(20_000)
      .default(RUN_DEFAULTS.feedbackTokenBudget)
      .describe("Tokens of errors and earlier programs fed back"),
    limits: Limits.default(RUN_LIMITS),
  })
  .strict()
  .openapi("CreateRun");

const Run = z.record(z.string(), z.unknown()).openapi("Run", {
  description:
    "id, status (`succeeded`, `no_answer`: a program ran to its end without an answer, `failed`), error {code, message} when it did not succeed (code `no_answer`, `model_declined`, `attempts_exhausted` or `model:<kind>`; the message names the run), answer, finalProgram, attempts (program, error, attributed tool, trace), modelCalls with token usage, usage, timings",
});

/** The settings of a run from a validated request (the MCP face's run_task uses the same). */
export function runSettings(body: z.infer<typeof CreateRun>): RunSettings {
  const { deadlineMs, maxToolCalls, toolTimeoutMs, maxToolResponseBytes, memoryLimitBytes, stretchBudget, totalBudget } = body.limits;
  return {
    maxAttempts: body.maxAttempts,
    feedbackTokenBudget: body.feedbackTokenBudget,
    limits: { deadlineMs, maxToolCalls, toolTimeoutMs, maxToolResponseBytes, memoryLimitBytes, stretchBudget, totalBudget },
  };
}

const runRoute = createRoute({
  method: "post",
  path: "/runs",
  tags: ["runs"],
  summary: "Solve a task with one generated program calling a chain of tools",
  description:
    "With `Accept: text/event-stream` the run streams its progress (attempt_started, program, tool_called, error, answer) and ends with a `run` event.",
  security: tenantSecurity,
  middleware: quotaFamily("runs"),
  request: { body: jsonBody(CreateRun) },
  responses: {
    201: { description: "The finished run", content: { "application/json": { schema: Run }, "text/event-stream": { schema: z.string() } } },
    ...problems(400, 401, 429, 502, 503),
  },
});

/** POST /runs: the run in one of the tenant's run slots, answered when it ends or streamed as it goes. */
const runTask: RouteHandler<typeof runRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const settings = runSettings(body);
  const request = { task: body.task, tools: body.tools };
  // One tenant's runs cannot fill the service: a per-tenant limit of runs in flight.
  return withRunSlot(c.var.tenant, request, c.req.path, async (lease) => {
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      return streamSSE(c, async (stream) => {
        try {
          const run = await startRun(c.env, c.var.tenantId, lease, request, settings, (event) => {
            void stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
          });
          await stream.writeSSE({ event: "run", data: JSON.stringify(run), id: run.id });
        } catch (error) {
          // The headers are sent: the problem goes in the stream, mapped (and logged) as the error boundary does.
          await stream.writeSSE({ event: "problem", data: JSON.stringify(problemDocument(toProblem(error), c.req.path)) });
        } finally {
          await lease.release();
        }
      });
    }
    try {
      const run = await startRun(c.env, c.var.tenantId, lease, request, settings);
      return c.json(run as unknown as Record<string, unknown>, 201);
    } finally {
      await lease.release();
    }
  }) as never;
};

const storedRunRoute = createRoute({
  method: "get",
  path: "/runs/{id}",
  tags: ["runs"],
  summary: "A stored run",
  security: tenantSecurity,
  request: { params: z.object({ id: z.string().max(100) }) },
  responses: { 200: { description: "The run", content: { "application/json": { schema: Run } } }, ...problems(401, 404) },
});

const readRun: RouteHandler<typeof storedRunRoute, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const json = await c.var.tenant.runs.get(id);
  if (json === undefined) throw new Failure("not-found", `No run ${id}.`);
  const evaluation = await c.var.tenant.runs.evaluationStatus(id);
  return c.json({ ...(JSON.parse(json) as Record<string, unknown>), evaluation: evaluation ?? null }, 200);
};

const runListRoute = createRoute({
  method: "get",
  path: "/runs",
  tags: ["runs"],
  summary: "Recent runs",
  security: tenantSecurity,
  request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }) },
  responses: {
    200: {
      description: "Runs, newest first",
      content: {
        "application/json": {
          schema: z.object({ runs: z.array(z.object({ id: z.string(), createdAt: z.string(), status: z.string(), task: z.string() })) }),
        },
      },
    },
    ...problems(401),
  },
});

const listRuns: RouteHandler<typeof runListRoute, AppEnv> = async (c) => c.json({ runs: await c.var.tenant.runs.list(c.req.valid("query").limit) }, 200);

/** ATC runs: one generated program per attempt, executed in an isolate, repaired by attributable reflection. */
export function registerRunEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(runRoute, runTask);
  app.openapi(storedRunRoute, readRun);
  app.openapi(runListRoute, listRuns);
}
