import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { conversationObserver, observerContext } from "../observed-conversation";
import { onCancel, watchToolList } from "./list-changed";
import { listTenantTools, tenantMcpServer } from "./server";
import { McpSettings, readMcpSettings, writeMcpSettings } from "./settings";

const DEFAULT_POLL_MS = 10_000;
const SESSION_HEADER = "mcp-session-id";
const STREAM_LIFETIME_MS = 10 * 60_000;

/**
 * `/mcp`: the tenant's MCP server (Streamable HTTP, stateless: a server and transport per
 * request, which is what a Worker can hold), on the MCP sub-app (tenant key, like `/v1`).
 */
export function registerMcpServerEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.all("/", async (c) => {
    // The transport is stateless, yet the service hands out a session id (`Mcp-Session-Id`) that
    // clients send back: it names the conversation implicit learning observes, nothing else.
    const sent = c.req.header(SESSION_HEADER);
    const sessionId = sent ?? crypto.randomUUID();
    const observer = conversationObserver(observerContext(c), "mcp", sessionId);
    // The client ends its session: the conversation is learned from now, not after the idle time.
    if (c.req.method === "DELETE" && sent !== undefined) {
      if (observer !== undefined) await c.var.tenant.observed.close(observer.conversation);
      return c.body(null, 200);
    }
    const context = { env: c.env, tenantId: c.var.tenantId, tenant: c.var.tenant, observer };
    const server = tenantMcpServer(context);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const answered = await transport.handleRequest(c.req.raw);
    const response = sent === undefined ? withHeader(answered, SESSION_HEADER, sessionId) : answered;
    if (c.req.method !== "GET" || !response.ok || response.body === null) return response;
    const watch = watchToolList(server, context, {
      pollMs: Number(c.env.MCP_LIST_CHANGED_POLL_MS ?? DEFAULT_POLL_MS),
      lifetimeMs: STREAM_LIFETIME_MS,
      listing: listTenantTools,
    });
    return new Response(onCancel(response.body, watch.stop), response);
  });
}

function withHeader(response: Response, name: string, value: string): Response {
  const headers = new Headers(response.headers);
  headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** `/v1/settings/mcp`: the tenant's MCP options (on the tenant sub-app). */
export function registerMcpSettingsEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/settings/mcp",
      tags: ["settings"],
      summary: "The tenant's MCP server options",
      security: tenantSecurity,
      responses: { 200: { description: "Settings", content: { "application/json": { schema: McpSettings } } }, ...problems(401) },
    }),
    async (c) => c.json(await readMcpSettings(c.var.tenant), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/settings/mcp",
      tags: ["settings"],
      summary: "Set the tenant's MCP server options",
      security: tenantSecurity,
      request: { body: jsonBody(McpSettings) },
      responses: { 200: { description: "Settings", content: { "application/json": { schema: McpSettings } } }, ...problems(400, 401) },
    }),
    async (c) => {
      const settings = c.req.valid("json");
      await writeMcpSettings(c.var.tenant, settings);
      return c.json(settings, 200);
    },
  );
}
