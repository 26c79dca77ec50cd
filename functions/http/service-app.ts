import type { OpenAPIHono } from "@hono/zod-openapi";
import { createConsole } from "./console";
import { registerApiDocs } from "./console/api-docs";
import { registerMcpServerRoutes, registerMcpSettingsRoutes } from "./mcp/routes";
import { registerOAuthRoutes } from "./oauth/routes";
import { SERVICE_NAME, SERVICE_VERSION } from "../common/service-version";
import { createApp } from "./app";
import { runRequestsTakeTurns } from "./middleware/run-turns";
import type { AppEnv } from "./app-env";
import { registerCredentialRoutes } from "./routes/credentials";
import { registerGraphRoutes } from "./routes/graph";
import { registerHealthRoutes } from "./routes/health";
import { registerJobRoutes } from "./routes/jobs";
import { registerObservedSessionRoutes } from "./routes/observed-sessions";
import { registerProtocolRoutes } from "./routes/protocols";
import { registerQuotaRoutes } from "./routes/quotas";
import { registerRoutingSettingsRoutes } from "./routes/route-answer";
import { registerRunRoutes } from "./routes/runs";
import { registerSettingsRoutes } from "./routes/settings";
import { registerSideEffectRoutes } from "./routes/side-effects";
import { registerAdminRoutes, registerTenantKeyRoutes } from "./routes/tenants";
import { registerToolExportRoutes } from "./routes/tool-export";
import { registerToolRoutes } from "./routes/tools";
import { registerSignedWebhookRoutes, registerWebhookSecretRoutes } from "./routes/webhooks";
import { adminApp, signedWebhookApp, tenantApp } from "./sub-apps";
import { mcpApp } from "./mcp/mcp-app";

/** The tenant API under /v1: every route here is reached only with a valid API key. */
function tenantApi(): OpenAPIHono<AppEnv> {
  const app = tenantApp();
  registerTenantKeyRoutes(app);
  registerToolRoutes(app);
  registerToolExportRoutes(app);
  registerCredentialRoutes(app);
  registerSettingsRoutes(app);
  registerQuotaRoutes(app);
  registerSideEffectRoutes(app);
  registerGraphRoutes(app);
  registerRoutingSettingsRoutes(app);
  registerRunRoutes(app);
  registerJobRoutes(app);
  registerProtocolRoutes(app);
  registerWebhookSecretRoutes(app);
  registerMcpSettingsRoutes(app);
  registerObservedSessionRoutes(app);
  return app;
}

/** The whole HTTP service: public routes, then the sub-apps (see sub-apps.ts), then the OpenAPI document of all of them. */
export function createServiceApp(): OpenAPIHono<AppEnv> {
  const app = createApp();
  registerHealthRoutes(app);
  // Public: MCP clients discover, register and exchange codes here before they hold a credential.
  registerOAuthRoutes(app);
  // Before the tenant API's key check (middleware/run-turns.ts).
  app.use("/v1/runs", runRequestsTakeTurns);

  const admin = adminApp();
  registerAdminRoutes(admin);
  app.route("/admin", admin);

  // Joined before the tenant API: that sub-app's key check covers every path under /v1, and a
  // signed webhook's handler answers before it is reached (a test sends one without a key).
  const signedWebhooks = signedWebhookApp();
  registerSignedWebhookRoutes(signedWebhooks);
  app.route("/v1/webhooks", signedWebhooks);

  app.route("/v1", tenantApi());

  const mcp = mcpApp();
  registerMcpServerRoutes(mcp);
  app.route("/mcp", mcp);

  app.route("/console", createConsole(app));
  registerApiDocs(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "tenantKey", {
    type: "http",
    scheme: "bearer",
    description: "Tenant API key `atc_<tenant>_<secret>`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer", description: "ADMIN_TOKEN secret" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: SERVICE_NAME,
      version: SERVICE_VERSION,
      description: "Multi-tenant tool use for chatbots and agents: tool registry, safe tool calls, routing, runs, probing.",
    },
  });
  return app;
}
