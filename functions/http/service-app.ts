import type { OpenAPIHono } from "@hono/zod-openapi";
import { createConsole } from "./console";
import { registerApiDocs } from "./console/api-docs";
import { registerMcpServerEndpoints, registerMcpSettingsEndpoints } from "./mcp/endpoints";
import { registerOAuthEndpoints } from "./oauth/endpoints";
import { SERVICE_NAME, SERVICE_VERSION } from "../common/service-version";
import { createApp } from "./app";
import { runRequestsTakeTurns } from "./middleware/run-turns";
import type { AppEnv } from "./app-env";
import { registerCredentialEndpoints } from "./endpoints/credentials";
import { registerGraphEndpoints } from "./endpoints/graph";
import { registerHealthEndpoints } from "./endpoints/health";
import { registerJobEndpoints } from "./endpoints/jobs";
import { registerObservedSessionEndpoints } from "./endpoints/observed-sessions";
import { registerProtocolEndpoints } from "./endpoints/protocols";
import { registerQuotaEndpoints } from "./endpoints/quotas";
import { registerRoutingSettingsEndpoints } from "./endpoints/route-answer";
import { registerRunEndpoints } from "./endpoints/runs";
import { registerSettingsEndpoints } from "./endpoints/settings";
import { registerSideEffectEndpoints } from "./endpoints/side-effects";
import { registerAdminEndpoints, registerTenantKeyEndpoints } from "./endpoints/tenants";
import { registerToolExportEndpoints } from "./endpoints/tool-export";
import { registerToolEndpoints } from "./endpoints/tools";
import { registerSignedWebhookEndpoints, registerWebhookSecretEndpoints } from "./endpoints/webhooks";
import { adminApp, signedWebhookApp, tenantApp } from "./sub-apps";
import { mcpApp } from "./mcp/mcp-app";

/** The tenant API under /v1: every route here is reached only with a valid API key. */
function tenantApi(): OpenAPIHono<AppEnv> {
  const app = tenantApp();
  registerTenantKeyEndpoints(app);
  registerToolEndpoints(app);
  registerToolExportEndpoints(app);
  registerCredentialEndpoints(app);
  registerSettingsEndpoints(app);
  registerQuotaEndpoints(app);
  registerSideEffectEndpoints(app);
  registerGraphEndpoints(app);
  registerRoutingSettingsEndpoints(app);
  registerRunEndpoints(app);
  registerJobEndpoints(app);
  registerProtocolEndpoints(app);
  registerWebhookSecretEndpoints(app);
  registerMcpSettingsEndpoints(app);
  registerObservedSessionEndpoints(app);
  return app;
}

/** The whole HTTP service: public routes, then the sub-apps (see sub-apps.ts), then the OpenAPI document of all of them. */
export function createServiceApp(): OpenAPIHono<AppEnv> {
  const app = createApp();
  registerHealthEndpoints(app);
  // Public: MCP clients discover, register and exchange codes here before they hold a credential.
  registerOAuthEndpoints(app);
  // Before the tenant API's key check (middleware/run-turns.ts).
  app.use("/v1/runs", runRequestsTakeTurns);

  const admin = adminApp();
  registerAdminEndpoints(admin);
  app.route("/admin", admin);

  // Joined before the tenant API: that sub-app's key check covers every path under /v1, and a
  // signed webhook's handler answers before it is reached (a test sends one without a key).
  const signedWebhooks = signedWebhookApp();
  registerSignedWebhookEndpoints(signedWebhooks);
  app.route("/v1/webhooks", signedWebhooks);

  app.route("/v1", tenantApi());

  const mcp = mcpApp();
  registerMcpServerEndpoints(mcp);
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
