import { createConsole } from "./console";
import { registerApiDocs } from "./console/api-docs";
import { createApp } from "./http/app";
import { registerCredentialRoutes } from "./http/routes/credentials";
import { registerGraphRoutes } from "./http/routes/graph";
import { registerHealthRoutes, SERVICE_VERSION } from "./http/routes/health";
import { registerJobRoutes } from "./http/routes/jobs";
import { registerProtocolRoutes } from "./http/routes/protocols";
import { registerQuotaRoutes } from "./http/routes/quotas";
import { registerSideEffectRoutes } from "./http/routes/side-effects";
import { registerWebhookRoutes } from "./http/routes/webhooks";
import { registerRunRoutes } from "./http/routes/runs";
import { registerRoutingSettingsRoutes } from "./http/routes/route-answer";
import { registerSettingsRoutes } from "./http/routes/settings";
import { registerTenantRoutes } from "./http/routes/tenants";
import { registerToolExportRoutes } from "./http/routes/tool-export";
import { registerToolRoutes } from "./http/routes/tools";
import { registerMcpRoutes } from "./mcp/routes";

export { ToolGateway } from "./sandbox/host/tool-gateway";
export { DirectoryObject } from "../durable-objects/directory-object";
export { TenantObject } from "../durable-objects/tenant-object";

const app = createApp();
registerHealthRoutes(app);
registerTenantRoutes(app);
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
registerWebhookRoutes(app);
registerMcpRoutes(app);
app.route("/console", createConsole(app));
registerApiDocs(app);

app.openAPIRegistry.registerComponent("securitySchemes", "tenantKey", { type: "http", scheme: "bearer", description: "Tenant API key `atc_<tenant>_<secret>`" });
app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer", description: "ADMIN_TOKEN secret" });
app.doc31("/openapi.json", {
  openapi: "3.1.0",
  info: {
    title: "atc-edge",
    version: SERVICE_VERSION,
    description: "Multi-tenant tool use for chatbots and agents: tool registry, safe tool calls, routing, runs, probing.",
  },
});

export default app satisfies ExportedHandler<Env>;
