import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { exportTools } from "../../toolnet/tool-export";
import type { AppEnv } from "../app-env";
import { problems, tenantSecurity } from "../openapi-common";

const ToolExport = z
  .object({
    format: z.enum(["openai", "mcp"]),
    count: z.number().int(),
    tokens: z.object({ count: z.number().int(), encoding: z.literal("o200k_base"), of: z.literal("tools") }),
    tools: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("ToolExport");

/** The whole tool set in one answer, for clients that do not route. */
export function registerToolExportEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/export/tools",
      tags: ["tools"],
      summary: "Every tool of the tenant as an OpenAI `tools` array or an MCP tool list, with its token count",
      description:
        "For clients that want everything rather than routing's answer. `tokens.count` is what the `tools` value costs in each request that carries it (o200k_base).",
      security: tenantSecurity,
      request: { query: z.object({ format: z.enum(["openai", "mcp"]).default("openai") }) },
      responses: { 200: { description: "The tools", content: { "application/json": { schema: ToolExport } } }, ...problems(400, 401) },
    }),
    async (c) => {
      const definitions = (await c.var.tenant.registry.listTools()).map((t) => t.definition);
      return c.json(exportTools(definitions, c.req.valid("query").format), 200);
    },
  );
}
