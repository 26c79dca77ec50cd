import { createRoute, z, type OpenAPIHono, type RouteHandler } from "@hono/zod-openapi";
import { LearningSettings } from "../../toolnet/implicit-learning-settings";
import { ToolName } from "../../tools/definition";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { Failure } from "../../common/failures";

const Settings = LearningSettings.openapi("LearningSettings");

const Outcome = z.enum(["success", "failure", "neutral"]);

const ObservedSession = z
  .object({
    id: z.string().describe("`mcp:<Mcp-Session-Id>` or `rest:<Conversation-Id>`"),
    openedAt: z.string(),
    lastAt: z.string(),
    closedAt: z.string().nullable().describe("Set once the conversation ended (client's DELETE, idle time, or a new task closed its last trajectory)"),
    open: z
      .object({ task: z.string(), tools: z.array(z.string()), outcomes: z.array(Outcome) })
      .nullable()
      .describe("The trajectory under way, not learned yet"),
    trajectories: z.array(
      z.object({
        id: z.string().describe("Its id in the graph's trajectories"),
        learnedAt: z.string(),
        task: z.string().nullable().describe("The task text; null once the retention period is over"),
        terms: z.string().describe("What first-step learning keeps of the task after the retention period"),
        tools: z.array(z.string()),
        outcomes: z.array(Outcome).describe("Each call's outcome: 2xx success; 5xx, timeout or refused failure"),
        implicitScores: z.record(z.string(), z.number().int()).describe("Implicit scores applied (explicit feedback in the conversation takes them back)"),
      }),
    ),
  })
  .openapi("ObservedSession");

const LearningDay = z
  .object({
    day: z.string().describe("UTC day"),
    searches: z.number().int().describe("Searches followed by a tool call"),
    offeredHits: z.number().int().describe("Of those, searches that had offered the tool called next"),
    trajectories: z.number().int().describe("Trajectories learned from observed conversations"),
    sessions: z.number().int().describe("Conversations learned from (counted on the day of their first trajectory)"),
  })
  .openapi("LearningDay");

const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(140)
    .openapi({ param: { name: "id", in: "path" } }),
});

const learningSettingsRoute = createRoute({
  method: "get",
  path: "/settings/learning",
  tags: ["settings"],
  summary: "Implicit learning: on or off, task-text retention, idle close",
  security: tenantSecurity,
  responses: { 200: { description: "Settings", content: { "application/json": { schema: Settings } } }, ...problems(401, 429) },
});

const readLearningSettings: RouteHandler<typeof learningSettingsRoute, AppEnv> = async (c) => c.json(await c.var.tenant.observed.learningSettings(), 200);

const learningSettingsChangeRoute = createRoute({
  method: "put",
  path: "/settings/learning",
  tags: ["settings"],
  summary: "Change implicit learning (fields left out take their defaults)",
  security: tenantSecurity,
  request: { body: jsonBody(Settings) },
  responses: { 200: { description: "Settings", content: { "application/json": { schema: Settings } } }, ...problems(400, 401, 415, 429) },
});

const changeLearningSettings: RouteHandler<typeof learningSettingsChangeRoute, AppEnv> = async (c) =>
  c.json(await c.var.tenant.observed.updateLearningSettings(c.req.valid("json")), 200);

const sessionListRoute = createRoute({
  method: "get",
  path: "/observed-sessions",
  tags: ["routing"],
  summary: "Observed conversations (newest first) and the trajectories learned from them",
  security: tenantSecurity,
  request: { query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }) },
  responses: {
    200: { description: "Sessions", content: { "application/json": { schema: z.object({ sessions: z.array(ObservedSession) }) } } },
    ...problems(400, 401, 429),
  },
});

const listSessions: RouteHandler<typeof sessionListRoute, AppEnv> = async (c) =>
  c.json({ sessions: await c.var.tenant.observed.list(c.req.valid("query").limit) }, 200);

const sessionDeleteRoute = createRoute({
  method: "delete",
  path: "/observed-sessions/{id}",
  tags: ["routing"],
  summary: "Delete an observed conversation and unlearn it (its trajectories and implicit scores)",
  security: tenantSecurity,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...problems(401, 404, 429) },
});

const deleteSession: RouteHandler<typeof sessionDeleteRoute, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  if ((await c.var.tenant.observed.delete(id)) === 0) throw new Failure("not-found", `No observed conversation ${id}.`);
  return c.body(null, 204);
};

const sessionsDeleteRoute = createRoute({
  method: "delete",
  path: "/observed-sessions",
  tags: ["routing"],
  summary: "Delete every observed conversation and unlearn them",
  security: tenantSecurity,
  responses: {
    200: { description: "Deleted", content: { "application/json": { schema: z.object({ deleted: z.number().int() }) } } },
    ...problems(401, 429),
  },
});

const deleteSessions: RouteHandler<typeof sessionsDeleteRoute, AppEnv> = async (c) => c.json({ deleted: await c.var.tenant.observed.delete() }, 200);

const learningCurveRoute = createRoute({
  method: "get",
  path: "/learning-curve",
  tags: ["routing"],
  summary: "How routing is doing over time: per day, searches whose offered tools were called next, and what was learned",
  security: tenantSecurity,
  request: { query: z.object({ days: z.coerce.number().int().min(1).max(366).default(90) }) },
  responses: {
    200: { description: "Days with activity, oldest first", content: { "application/json": { schema: z.object({ days: z.array(LearningDay) }) } } },
    ...problems(400, 401, 429),
  },
});

const readLearningCurve: RouteHandler<typeof learningCurveRoute, AppEnv> = async (c) =>
  c.json({ days: await c.var.tenant.observed.curve(c.req.valid("query").days) }, 200);

const LearnedOrigin = z.object({ sources: z.number().int(), words: z.number().int() }).openapi("LearnedOrigin");

const LearnedWords = z
  .object({
    tool: z.string(),
    sources: z.number().int().describe("How many sources taught it words: conversations, trajectories and its example requests (its newest 200 count)"),
    terms: z
      .array(z.object({ term: z.string().describe("An index term (stemmed word)"), weight: z.number().describe("Its weight in the tool's learned field") }))
      .describe("The strongest learned terms, strongest first"),
    fromUse: LearnedOrigin.describe("Observed conversations, trajectories and scores: how many taught it, and how many words of its field they taught"),
    fromExamples: LearnedOrigin.describe(
      "Example requests (the queries of an applied Play2Prompt optimisation, or requests the tenant's model wrote at import; weighed half of one observed conversation): whether they taught it (0 or 1) and how many words",
    ),
  })
  .openapi("LearnedWords");

const learnedWordsRoute = createRoute({
  method: "get",
  path: "/tools/{name}/learned-words",
  tags: ["routing"],
  summary: "The words a tool learned from the requests that chose it (its learned field), strongest first",
  security: tenantSecurity,
  request: {
    params: z.object({ name: ToolName }),
    query: z.object({ limit: z.coerce.number().int().min(1).max(64).default(20) }),
  },
  responses: {
    200: { description: "Its learned words", content: { "application/json": { schema: LearnedWords } } },
    ...problems(400, 401, 404, 429),
  },
});

const readLearnedWords: RouteHandler<typeof learnedWordsRoute, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  if ((await c.var.tenant.registry.getTool(name)) === undefined) throw new Failure("not-found", `No tool named ${name}.`);
  return c.json(await c.var.tenant.routing.learnedWords(name, c.req.valid("query").limit), 200);
};

/** Implicit learning: its settings, the observed conversations (read, delete), the learning curve and each tool's learned words. */
export function registerObservedSessionEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(learningSettingsRoute, readLearningSettings);
  app.openapi(learningSettingsChangeRoute, changeLearningSettings);
  app.openapi(sessionListRoute, listSessions);
  app.openapi(sessionDeleteRoute, deleteSession);
  app.openapi(sessionsDeleteRoute, deleteSessions);
  app.openapi(learningCurveRoute, readLearningCurve);
  app.openapi(learnedWordsRoute, readLearnedWords);
}
