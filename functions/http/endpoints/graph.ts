import { quotaFamily } from "../quota-family";
import { createRoute, z, type OpenAPIHono, type RouteHandler } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import { toDot } from "../../toolnet/graph-dot";
import { toSvg } from "../../toolnet/graph-svg";
import { routeWithTaskVector, type TaskVector } from "../../services/tool-embeddings";
import { MAX_EVALUATOR_SCORE, MIN_EVALUATOR_SCORE } from "../../toolnet/graph";
import type { AppEnv } from "../app-env";
import { ConversationHeaders, conversationObserver, observerContext } from "../observed-conversation";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { unwrap, Failure } from "../../common/failures";
import { AnswerInclude, MaxTokens, RouteAnswer } from "./route-answer";
import { OBSERVED_ID_PREFIX } from "../../toolnet/observed-session";
import { EXAMPLE_SOURCE_PREFIX } from "../../toolnet/learned-examples";

const RouteRequest = z
  .object({
    task: z.string().trim().min(1).max(10_000).describe("What the user wants done"),
    previousTool: z.string().max(200).nullable().optional().describe("The tool used last; omit or null for the first step"),
    k: z.number().int().min(1).max(50).default(8).describe("How many candidates (after a tool, Finish is added to them)"),
    maxTokens: MaxTokens.optional().describe("Token budget of the answer (what `include` returns); default: the tenant's setting, else 2,000"),
    include: AnswerInclude.optional().describe(
      "What the answer returns and its budget counts: `tools` (the OpenAI `tools` array a chat-completions caller passes on; default), `prompt` (ToolNet's prompt block: with `tools`, the weights in its order; alone, the paper's eq. 4 list naming and describing each tool), or both",
    ),
    mode: z
      .enum(["fused", "graph"])
      .default("fused")
      .describe(
        "`fused`: learned transitions, task relevance, data flow and similar earlier tasks together, each candidate with `why`; `graph`: the paper's eq. 4 (successors by learned weight only)",
      ),
  })
  .strict()
  .openapi("RouteRequest");

/** Id prefixes the service keeps for its own learned evidence: a posted trajectory taking one would be counted as that evidence. */
const RESERVED_TRAJECTORY_PREFIXES = [OBSERVED_ID_PREFIX, EXAMPLE_SOURCE_PREFIX];

const TrajectoryImport = z
  .object({
    trajectories: z
      .array(
        z
          .object({
            id: z
              .string()
              .min(1)
              .max(200)
              .refine((id) => !RESERVED_TRAJECTORY_PREFIXES.some((prefix) => id.startsWith(prefix)), {
                message: `ids beginning with ${RESERVED_TRAJECTORY_PREFIXES.join(" or ")} are the service's own (observed conversations, example requests)`,
              }),
            tools: z.array(z.string().min(1).max(200)).min(1).max(256),
            task: z.string().trim().min(1).max(10_000).optional().describe("The task this trajectory solved: teaches which tools start similar tasks"),
          })
          .strict(),
      )
      .min(1)
      .max(10_000),
    unknownTools: z.enum(["error", "skip"]).default("error"),
  })
  .strict()
  .openapi("TrajectoryImport");

const Score = z.number().int().min(MIN_EVALUATOR_SCORE).max(MAX_EVALUATOR_SCORE);
const Feedback = z
  .union([
    z
      .object({
        tools: z.array(z.string().min(1).max(200)).min(1).max(256).describe("The tools of one trajectory, in order"),
        scores: z.array(Score).min(1).max(256).describe("One integer score in [-3, 3] per tool"),
      })
      .strict()
      .refine((f) => f.tools.length === f.scores.length, { message: "one score per tool", path: ["scores"] }),
    z
      .object({
        runId: z.string().min(1).max(100).describe("A stored run: every tool call of its final program gets `score`"),
        score: Score,
      })
      .strict(),
  ])
  .openapi("Feedback");

const MAX_BATCH_UPDATES = 1_000;
const FeedbackBatch = z
  .object({
    updates: z
      .array(Feedback)
      .min(1)
      .max(MAX_BATCH_UPDATES)
      .describe("Feedback items as `POST /v1/feedback` takes them, applied in order in one transaction: all or none"),
  })
  .strict()
  .openapi("FeedbackBatch");

const ImportResult = z
  .object({ added: z.array(z.string()), unchanged: z.array(z.string()), transitions: z.number().int(), skippedTools: z.array(z.string()) })
  .openapi("TrajectoryImportResult");
const FeedbackResult = z
  .object({ updated: z.array(z.object({ tool: z.string(), delta: z.number(), score: z.number() })), skippedTools: z.array(z.string()) })
  .openapi("FeedbackResult");

const FeedbackBatchResult = z
  .object({ applied: z.number().int(), results: z.array(FeedbackResult).describe("One report per update, in order") })
  .openapi("FeedbackBatchResult");

const GraphSettings = z
  .object({ alpha: z.number().gt(0).max(10).optional(), beta: z.number().min(0).max(1).optional() })
  .strict()
  .openapi("GraphSettings");

const routeStepRoute = createRoute({
  method: "post",
  path: "/route",
  tags: ["routing"],
  summary: "Which tools next? Ranked candidates, without a model call",
  security: tenantSecurity,
  middleware: quotaFamily("routing"),
  request: { body: jsonBody(RouteRequest), headers: ConversationHeaders },
  responses: { 200: { description: "Candidates", content: { "application/json": { schema: RouteAnswer } } }, ...problems(400, 401, 404) },
});

/** POST /route: the tenant's routing object ranks the candidates; a request in an observed conversation is recorded as a search. */
const answerRouteStep: RouteHandler<typeof routeStepRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const observer = conversationObserver(observerContext(c), "rest", c.req.valid("header")["conversation-id"]);
  const previous = body.previousTool ?? null;
  const options = {
    mode: body.mode,
    ...(body.maxTokens === undefined ? {} : { maxTokens: body.maxTokens }),
    ...(body.include === undefined ? {} : { include: body.include }),
  };
  // The object answers with the JSON text itself: one string crosses RPC, sent as it is.
  const route = (query: TaskVector | undefined) => c.var.tenant.routing.routeJson(body.task, previous, body.k, query, options);
  // Task relevance is used at every fused step, so the task is embedded for those too.
  const first = () => c.var.tenant.routing.routeJsonUnlessEmbedded(body.task, previous, body.k, options);
  const answer =
    previous === null || body.mode === "fused"
      ? await routeWithTaskVector(c.env, c.var.tenantId, c.var.tenant, body.task, route, first)
      : await route(undefined);
  const text = unwrap(answer);
  // Only a request in a conversation pays for reading the answer back.
  if (observer !== undefined)
    observer.search(
      body.task,
      previous,
      (JSON.parse(text) as { candidates: { name: string }[] }).candidates.map((candidate) => candidate.name),
    );
  // Typed as the route's JSON answer (the text is that answer, serialised by the object).
  return c.body(text, 200, { "Content-Type": "application/json" }) as unknown as TypedResponse<JSONParsed<z.infer<typeof RouteAnswer>>, 200, "json">;
};

const trajectoryImportRoute = createRoute({
  method: "post",
  path: "/graph/trajectories",
  tags: ["routing"],
  summary: "Static construction: import tool-call sequences (idempotent per id)",
  security: tenantSecurity,
  middleware: quotaFamily("routing"),
  request: { body: jsonBody(TrajectoryImport) },
  responses: {
    200: { description: "Imported", content: { "application/json": { schema: ImportResult } } },
    ...problems(400, 401),
  },
});

const importTrajectories: RouteHandler<typeof trajectoryImportRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const result = unwrap(await c.var.tenant.routing.importTrajectories(body.trajectories, body.unknownTools));
  return c.json({ added: [...result.added], unchanged: [...result.unchanged], transitions: result.transitions, skippedTools: [...result.skippedTools] }, 200);
};

const feedbackRoute = createRoute({
  method: "post",
  path: "/feedback",
  tags: ["routing"],
  summary: "Dynamic construction: evaluator scores for the tools of one trajectory",
  security: tenantSecurity,
  middleware: quotaFamily("routing"),
  request: { body: jsonBody(Feedback), headers: ConversationHeaders },
  responses: {
    200: { description: "Scores applied", content: { "application/json": { schema: FeedbackResult } } },
    ...problems(400, 401),
  },
});

const applyFeedback: RouteHandler<typeof feedbackRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const conversation = c.req.valid("header")["conversation-id"];
  // Sent in an observed conversation, it overrides that conversation's implicit scores.
  const result = unwrap(await c.var.tenant.applyFeedback(body, conversation === undefined ? undefined : `rest:${conversation}`));
  return c.json({ updated: result.updated.map((u) => ({ ...u })), skippedTools: [...result.skippedTools] }, 200);
};

const feedbackBatchRoute = createRoute({
  method: "post",
  path: "/feedback/batch",
  tags: ["routing"],
  summary: "Many feedback items in one request, applied in one transaction: all or none",
  security: tenantSecurity,
  middleware: quotaFamily("routing"),
  request: { body: jsonBody(FeedbackBatch) },
  responses: {
    200: { description: "Every update applied", content: { "application/json": { schema: FeedbackBatchResult } } },
    ...problems(400, 401, 422),
  },
});

const applyFeedbackBatch: RouteHandler<typeof feedbackBatchRoute, AppEnv> = async (c) => {
  const { updates } = c.req.valid("json");
  const results = unwrap(await c.var.tenant.applyFeedbackBatch(updates));
  return c.json(
    { applied: results.length, results: results.map((r) => ({ updated: r.updated.map((u) => ({ ...u })), skippedTools: [...r.skippedTools] })) },
    200,
  );
};

const graphExportRoute = createRoute({
  method: "get",
  path: "/graph",
  tags: ["routing"],
  summary: "Export the graph (JSON snapshot) or a picture of it (SVG drawn by the service, or Graphviz DOT)",
  security: tenantSecurity,
  request: {
    query: z.object({
      format: z.enum(["json", "svg", "dot"]).default("json"),
      minWeight: z.coerce.number().min(0).max(1).optional().describe("SVG and DOT only: leave out edges lighter than this"),
    }),
  },
  responses: {
    200: {
      description: "The graph",
      content: {
        "application/json": { schema: z.record(z.string(), z.unknown()) },
        "image/svg+xml": { schema: z.string() },
        "text/vnd.graphviz": { schema: z.string() },
      },
    },
    ...problems(400, 401),
  },
});

const exportGraph: RouteHandler<typeof graphExportRoute, AppEnv> = async (c) => {
  const { format, minWeight } = c.req.valid("query");
  if (format === "svg") {
    const svg = toSvg(await c.var.tenant.routing.weightedEdges(), minWeight === undefined ? {} : { minWeight });
    return c.body(svg, 200, { "content-type": "image/svg+xml; charset=utf-8" });
  }
  if (format === "dot") {
    const dot = toDot(await c.var.tenant.routing.weightedEdges(), minWeight === undefined ? {} : { minWeight });
    return c.body(dot, 200, { "content-type": "text/vnd.graphviz; charset=utf-8" });
  }
  return c.json(await c.var.tenant.routing.snapshot(), 200);
};

const graphImportRoute = createRoute({
  method: "put",
  path: "/graph",
  tags: ["routing"],
  summary: "Import a graph snapshot, replacing learned trajectories, scores and settings",
  security: tenantSecurity,
  request: { body: jsonBody(z.record(z.string(), z.unknown())) },
  responses: {
    200: { description: "Imported", content: { "application/json": { schema: z.object({ missingTools: z.array(z.string()) }) } } },
    ...problems(400, 401),
  },
});

const importGraph: RouteHandler<typeof graphImportRoute, AppEnv> = async (c) =>
  c.json(unwrap(await c.var.tenant.routing.replaceWith(c.req.valid("json"))), 200);

const graphSettingsRoute = createRoute({
  method: "get",
  path: "/settings/graph",
  tags: ["settings"],
  summary: "ToolNet's α (update speed) and β (weight kept from static construction)",
  security: tenantSecurity,
  responses: { 200: { description: "Settings", content: { "application/json": { schema: GraphSettings } } }, ...problems(401) },
});

const readGraphSettings: RouteHandler<typeof graphSettingsRoute, AppEnv> = async (c) => c.json(await c.var.tenant.routing.settings(), 200);

const graphSettingsChangeRoute = createRoute({
  method: "put",
  path: "/settings/graph",
  tags: ["settings"],
  summary: "Change α or β",
  security: tenantSecurity,
  request: { body: jsonBody(GraphSettings) },
  responses: { 200: { description: "Settings", content: { "application/json": { schema: GraphSettings } } }, ...problems(400, 401) },
});

const changeGraphSettings: RouteHandler<typeof graphSettingsChangeRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  if (body.alpha === undefined && body.beta === undefined) throw new Failure("invalid-request", "Give alpha, beta or both.");
  return c.json(unwrap(await c.var.tenant.routing.updateSettings(body)), 200);
};

/** ToolNet: routing, trajectories, feedback, the graph itself and its settings. */
export function registerGraphEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(routeStepRoute, answerRouteStep);
  registerGraphLearningEndpoints(app);
  registerGraphExchangeEndpoints(app);
  registerGraphSettingsEndpoints(app);
}

/** Static and dynamic construction: trajectories, and feedback one item or a batch at a time. */
function registerGraphLearningEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(trajectoryImportRoute, importTrajectories);
  app.openapi(feedbackRoute, applyFeedback);
  app.openapi(feedbackBatchRoute, applyFeedbackBatch);
}

/** The graph as a whole: exported (JSON, SVG, DOT) or replaced by a snapshot. */
function registerGraphExchangeEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(graphExportRoute, exportGraph);
  app.openapi(graphImportRoute, importGraph);
}

/** ToolNet's α and β. */
function registerGraphSettingsEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(graphSettingsRoute, readGraphSettings);
  app.openapi(graphSettingsChangeRoute, changeGraphSettings);
}
