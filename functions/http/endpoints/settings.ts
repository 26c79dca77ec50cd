import { createRoute, z, type OpenAPIHono, type RouteHandler } from "@hono/zod-openapi";
import { RunSettings } from "../../storage/run-settings";
import { describeModelConfig, TenantModelOverride } from "../../llm/config";
import { overrideProblem, readModelOverride, storeModelOverride, tenantModelConfig } from "../../services/model-settings";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { Failure } from "../../common/failures";

const ModelOverrideView = z
  .object({ baseUrl: z.string().optional(), model: z.string().optional(), embeddingModel: z.string().optional(), apiKeyHint: z.string().optional() })
  .openapi("ModelOverride");
const EffectiveModel = z
  .object({
    override: ModelOverrideView.nullable(),
    effective: z.record(z.string(), z.unknown()).nullable().describe("The configuration calls will use, key masked"),
    problem: z.string().optional().describe("Why model calls cannot be made, when they cannot"),
  })
  .openapi("ModelSettings");

const OptimizationSettings = z
  .object({
    autoOptimize: z.boolean().describe("Queue a Play2Prompt job for a tool once runs attribute `failureThreshold` failures to it (off by default)"),
    failureThreshold: z.number().int().min(1).max(1_000),
  })
  .strict()
  .openapi("OptimizationSettings");
/** A change: the fields given are set, the others keep their value. */
const OptimizationSettingsChange = OptimizationSettings.partial().openapi("OptimizationSettingsChange");

const RunSettingsView = RunSettings.openapi("RunSettings");

const runSettingsRoute = createRoute({
  method: "get",
  path: "/settings/runs",
  tags: ["settings"],
  summary: "How many runs this tenant may have in flight at once",
  security: tenantSecurity,
  responses: { 200: { description: "Settings", content: { "application/json": { schema: RunSettingsView } } }, ...problems(401) },
});

const readRunSettings: RouteHandler<typeof runSettingsRoute, AppEnv> = async (c) => c.json(await c.var.tenant.settings.runSettings(), 200);

const runSettingsChangeRoute = createRoute({
  method: "put",
  path: "/settings/runs",
  tags: ["settings"],
  summary: "Change how many runs this tenant may have in flight at once",
  security: tenantSecurity,
  request: { body: jsonBody(RunSettingsView) },
  responses: { 200: { description: "Settings", content: { "application/json": { schema: RunSettingsView } } }, ...problems(400, 401) },
});

const changeRunSettings: RouteHandler<typeof runSettingsChangeRoute, AppEnv> = async (c) =>
  c.json(await c.var.tenant.settings.updateRunSettings(c.req.valid("json")), 200);

const optimizationSettingsRoute = createRoute({
  method: "get",
  path: "/settings/optimization",
  tags: ["settings"],
  summary: "Automatic prompt optimisation of often-misused tools",
  security: tenantSecurity,
  responses: { 200: { description: "Settings", content: { "application/json": { schema: OptimizationSettings } } }, ...problems(401) },
});

const readOptimizationSettings: RouteHandler<typeof optimizationSettingsRoute, AppEnv> = async (c) => c.json(await c.var.tenant.optimization.settings(), 200);

const optimizationSettingsChangeRoute = createRoute({
  method: "put",
  path: "/settings/optimization",
  tags: ["settings"],
  summary: "Turn automatic prompt optimisation on or off",
  security: tenantSecurity,
  request: { body: jsonBody(OptimizationSettingsChange) },
  responses: { 200: { description: "Settings", content: { "application/json": { schema: OptimizationSettings } } }, ...problems(400, 401) },
});

const changeOptimizationSettings: RouteHandler<typeof optimizationSettingsChangeRoute, AppEnv> = async (c) =>
  c.json(await c.var.tenant.optimization.update(c.req.valid("json")), 200);

/** The tenant's model override and the configuration its calls will use (key masked), or why calls cannot be made. */
async function effectiveModelSettings(c: { env: Env; var: AppEnv["Variables"] }) {
  const resolved = await tenantModelConfig(c.env, c.var.tenantId, c.var.tenant);
  const override = (await readModelOverride(c.var.tenant)) ?? null;
  return resolved.ok ? { override, effective: { ...describeModelConfig(resolved.config) } } : { override, effective: null, problem: resolved.message };
}

const modelSettingsRoute = createRoute({
  method: "get",
  path: "/settings/model",
  tags: ["settings"],
  summary: "The model configuration this tenant's calls use",
  security: tenantSecurity,
  responses: { 200: { description: "Settings", content: { "application/json": { schema: EffectiveModel } } }, ...problems(401) },
});

const readModelSettings: RouteHandler<typeof modelSettingsRoute, AppEnv> = async (c) => c.json(await effectiveModelSettings(c), 200);

const modelOverrideRoute = createRoute({
  method: "put",
  path: "/settings/model",
  tags: ["settings"],
  summary: "Override the service's model endpoint, key or model names for this tenant",
  security: tenantSecurity,
  request: { body: jsonBody(TenantModelOverride) },
  responses: { 200: { description: "Settings", content: { "application/json": { schema: EffectiveModel } } }, ...problems(400, 401, 422, 503) },
});

const overrideModel: RouteHandler<typeof modelOverrideRoute, AppEnv> = async (c) => {
  const override = c.req.valid("json");
  const problem = overrideProblem(c.env, override);
  if (problem !== undefined) throw new Failure("invalid-request", problem, [{ path: "baseUrl", message: problem }]);
  await storeModelOverride(c.env, c.var.tenantId, c.var.tenant, override);
  return c.json(await effectiveModelSettings(c), 200);
};

const modelOverrideRemovalRoute = createRoute({
  method: "delete",
  path: "/settings/model",
  tags: ["settings"],
  summary: "Remove the tenant's model override",
  security: tenantSecurity,
  responses: { 200: { description: "Settings", content: { "application/json": { schema: EffectiveModel } } }, ...problems(401) },
});

const removeModelOverride: RouteHandler<typeof modelOverrideRemovalRoute, AppEnv> = async (c) => {
  await c.var.tenant.settings.put("model", undefined);
  return c.json(await effectiveModelSettings(c), 200);
};

/** A tenant's model settings (its own endpoint, key or model names), optimisation and run settings. */
export function registerSettingsEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(runSettingsRoute, readRunSettings);
  app.openapi(runSettingsChangeRoute, changeRunSettings);
  app.openapi(optimizationSettingsRoute, readOptimizationSettings);
  app.openapi(optimizationSettingsChangeRoute, changeOptimizationSettings);
  app.openapi(modelSettingsRoute, readModelSettings);
  app.openapi(modelOverrideRoute, overrideModel);
  app.openapi(modelOverrideRemovalRoute, removeModelOverride);
}
