import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { QuotaSettings, QuotaSettingsUpdate } from "../../quotas/settings";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";

const QuotaView = QuotaSettings.extend({ modelTokensToday: z.number().int().describe("Model tokens used since UTC midnight") }).openapi("Quotas");

/** The tenant's quotas: rates per quota family, jobs in flight, model tokens per day. */
export function registerQuotaEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/settings/quotas",
      tags: ["settings"],
      summary: "Quotas (defaults unless changed) and today's model tokens",
      security: tenantSecurity,
      responses: { 200: { description: "Quotas", content: { "application/json": { schema: QuotaView } } }, ...problems(401, 429) },
    }),
    async (c) => c.json({ ...(await c.var.tenant.quotas.settings()), modelTokensToday: await c.var.tenant.quotas.modelTokensToday(Date.now()) }, 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/settings/quotas",
      tags: ["settings"],
      summary: "Change quotas (any subset)",
      security: tenantSecurity,
      request: { body: jsonBody(QuotaSettingsUpdate.openapi("QuotasUpdate")) },
      responses: { 200: { description: "Quotas", content: { "application/json": { schema: QuotaSettings } } }, ...problems(400, 401, 415, 429) },
    }),
    async (c) => c.json(await c.var.tenant.quotas.update(c.req.valid("json")), 200),
  );
}
