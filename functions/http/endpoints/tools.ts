import { quotaFamily } from "../quota-family";
import { createRoute, z, type OpenAPIHono, type RouteHandler } from "@hono/zod-openapi";
import { contentHash } from "../../tools/content-hash";
import { ToolDefinition, ToolName } from "../../tools/definition";
import { invokeTool } from "../../services/invoke";
import { embedNewTools } from "../../services/tool-embeddings";
import { registerTools } from "../../services/register";
import { backgroundImport, importRequestHook, resolveImportSource } from "./import-source";
import { ImportAccepted, importAccepted, registerImportUploadRoute } from "./import-upload";
import { assertWithinToolLimit, toolLimit } from "../../tools/tool-limit";
import type { AppEnv } from "../app-env";
import { ConversationHeaders, conversationObserver, observerContext } from "../observed-conversation";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { unwrap, Failure } from "../../common/failures";

const ToolRecord = z.object({ definition: ToolDefinition, hash: z.string(), source: z.string(), createdAt: z.string(), updatedAt: z.string() }).openapi("Tool");
const ToolSummary = z
  .object({ name: z.string(), operation: z.string(), summary: z.string().optional(), hash: z.string(), source: z.string(), updatedAt: z.string() })
  .openapi("ToolSummary");
const UpsertReport = z
  .object({
    created: z.array(z.string()),
    updated: z.array(z.string()),
    unchanged: z.array(z.string()),
    removed: z.array(z.string()),
    warnings: z.array(z.string()),
    examplesJob: z
      .string()
      .optional()
      .describe(
        "The background job in which the tenant's model writes example requests for the created and changed tools (learning setting `examplesAtImport`); absent when none was queued",
      ),
  })
  .openapi("ImportReport");

const SourceLabel = z.string().min(1).max(200).describe("Groups the imported tools; `prune` removes tools of this source that the import no longer has");
const ImportTools = z
  .discriminatedUnion("format", [
    z
      .object({
        format: z.literal("openapi"),
        document: z
          .union([z.string().min(1), z.record(z.string(), z.unknown())])
          .optional()
          .describe("OpenAPI 3.0/3.1 document, as an object or as JSON/YAML text (or give `url`)"),
        url: z
          .string()
          .url()
          .optional()
          .describe("Where the service fetches the document (through the destination guard, with size and time limits) instead of `document`"),
        serverUrl: z.string().url().optional().describe("Overrides the document's servers[0].url"),
        background: z
          .boolean()
          .optional()
          .describe(
            "Import in the background: answers 202 with a job (GET /v1/jobs/{id}: progress, tools so far, then the report). A `url` whose document is larger than the JSON body limit always imports in the background. JSON documents only",
          ),
        source: SourceLabel.optional(),
        prune: z.boolean().default(false),
      })
      .strict(),
    z
      .object({
        format: z.literal("list"),
        tools: z
          .unknown()
          .optional()
          .describe("A bare list of tools (name, method, url, parameters) or an autotools-style {servers, endpoints} object (or give `url`)"),
        url: z.string().url().optional().describe("Where the service fetches the list (JSON) instead of `tools`"),
        source: SourceLabel.optional(),
        prune: z.boolean().default(false),
      })
      .strict(),
    z
      .object({
        format: z.literal("mcp"),
        url: z.string().url().describe("The MCP server's Streamable HTTP endpoint"),
        headers: z
          .record(z.string().min(1).max(200), z.string().max(8_192))
          .optional()
          .describe("Sent with the import's requests; a single one (bearer token or API-key header) is stored, sealed, as the server's credential for calls"),
        source: SourceLabel.optional().describe("Default: the server URL"),
        prune: z.boolean().default(false),
      })
      .strict(),
  ])
  .openapi("ImportTools");

const CallTool = z
  .object({ arguments: z.record(z.string(), z.unknown()).default({}) })
  .strict()
  .openapi("CallTool");
const ToolCallResult = z
  .object({
    ok: z.boolean(),
    status: z.number().int().optional(),
    body: z.unknown(),
    truncated: z.boolean(),
    bytes: z.number().int(),
    durationMs: z.number(),
    contentType: z.string().optional(),
    request: z.object({ method: z.string(), url: z.string() }),
    error: z.object({ kind: z.string(), message: z.string(), argument: z.string().optional() }).optional(),
  })
  .openapi("ToolCallResult");

const NameParam = z.object({ name: ToolName });

const importRoute = createRoute({
  method: "post",
  path: "/tools/import",
  tags: ["tools"],
  summary: "Register tools from an OpenAPI document, a bare list or a remote MCP server",
  description: "Idempotent: tools whose definition is unchanged are left as they are.",
  security: tenantSecurity,
  request: { body: jsonBody(ImportTools) },
  responses: {
    200: { description: "What changed", content: { "application/json": { schema: UpsertReport } } },
    202: { description: "Importing in the background", content: { "application/json": { schema: ImportAccepted } } },
    ...problems(400, 401, 413, 409, 422, 502),
  },
});

/** POST /tools/import: an MCP server's tools, or a document or list imported now or (big, or asked for) as a background job. */
const importTools: RouteHandler<typeof importRoute, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  if (body.format === "mcp") {
    const source = { format: body.format, url: body.url, headers: body.headers };
    return c.json(await registerTools(c.env, c.var.tenantId, c.var.tenant, source, body.source ?? body.url, body.prune), 200);
  }
  const background = body.format === "openapi" ? await backgroundImport(c.env, c.var.tenant, body) : undefined;
  if (background !== undefined && "started" in background) {
    c.header("Location", `/v1/jobs/${background.started.jobId}`);
    return c.json(importAccepted(background.started), 202);
  }
  const source = background?.source ?? (await resolveImportSource(c.env, body));
  return c.json(await registerTools(c.env, c.var.tenantId, c.var.tenant, source, body.source ?? body.url ?? body.format, body.prune), 200);
};

const listRoute = createRoute({
  method: "get",
  path: "/tools",
  tags: ["tools"],
  summary: "List tools",
  security: tenantSecurity,
  responses: {
    200: { description: "Tools", content: { "application/json": { schema: z.object({ tools: z.array(ToolSummary) }) } } },
    ...problems(401),
  },
});

const listTools: RouteHandler<typeof listRoute, AppEnv> = async (c) => {
  return c.json({ tools: await c.var.tenant.registry.toolSummaries() }, 200);
};

const readRoute = createRoute({
  method: "get",
  path: "/tools/{name}",
  tags: ["tools"],
  summary: "Read a tool",
  security: tenantSecurity,
  request: { params: NameParam },
  responses: { 200: { description: "The tool", content: { "application/json": { schema: ToolRecord } } }, ...problems(400, 401, 404) },
});

const readTool: RouteHandler<typeof readRoute, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const tool = await c.var.tenant.registry.getTool(name);
  if (tool === undefined) throw new Failure("not-found", `No tool named ${name}.`);
  return c.json(tool, 200);
};

const replaceRoute = createRoute({
  method: "put",
  path: "/tools/{name}",
  tags: ["tools"],
  summary: "Create or replace one tool",
  security: tenantSecurity,
  request: { params: NameParam, body: jsonBody(ToolDefinition) },
  responses: {
    200: { description: "What changed", content: { "application/json": { schema: UpsertReport } } },
    ...problems(400, 401, 422),
  },
});

const replaceTool: RouteHandler<typeof replaceRoute, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const definition = c.req.valid("json");
  if (definition.name !== name) throw new Failure("invalid-request", `The body names tool ${definition.name}, the path ${name}.`);
  assertWithinToolLimit(await c.var.tenant.registry.toolCountAfter([definition.name], "api", false), toolLimit(c.env));
  const report = unwrap(
    await c.var.tenant.registry.upsertTools(
      [{ definition, hash: await contentHash(definition) }],
      "api",
      false,
      toolLimit(c.env),
      undefined,
      // The path names the tool this replaces, whatever its source: no silent replacement.
      true,
    ),
  );
  const embedded = await embedNewTools(c.env, c.var.tenantId, c.var.tenant);
  return c.json({ ...report, warnings: embedded.warning === undefined ? [] : [embedded.warning] }, 200);
};

const deleteRoute = createRoute({
  method: "delete",
  path: "/tools/{name}",
  tags: ["tools"],
  summary: "Delete a tool",
  security: tenantSecurity,
  request: { params: NameParam },
  responses: { 204: { description: "Deleted" }, ...problems(400, 401, 404) },
});

const deleteTool: RouteHandler<typeof deleteRoute, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  if (!(await c.var.tenant.registry.deleteTool(name))) throw new Failure("not-found", `No tool named ${name}.`);
  return c.body(null, 204);
};

const callRoute = createRoute({
  method: "post",
  path: "/tools/{name}/call",
  tags: ["tools"],
  summary: "Call a tool with arguments",
  description:
    "Arguments are validated against the tool's parameters first; the destination is checked on every redirect hop; the tenant's credential is injected and never returned. Upstream failures come back as `ok: false` with the upstream status and body.",
  security: tenantSecurity,
  middleware: quotaFamily("toolCalls"),
  request: { params: NameParam, body: jsonBody(CallTool), headers: ConversationHeaders },
  responses: {
    200: { description: "The call was made", content: { "application/json": { schema: ToolCallResult } } },
    ...problems(400, 401, 404, 422),
  },
});

/** POST /tools/{name}/call: a refused call (bad arguments, blocked destination) is a problem; an upstream failure is an answer. */
const callTool: RouteHandler<typeof callRoute, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const outcome = await invokeTool(c.env, c.var.tenantId, c.var.tenant, name, c.req.valid("json").arguments);
  if (!outcome.found) throw new Failure("not-found", `No tool named ${name}.`);
  const { result } = outcome;
  const refused = result.error?.kind === "invalid_arguments" || result.error?.kind === "blocked_destination";
  conversationObserver(observerContext(c), "rest", c.req.valid("header")["conversation-id"])?.call(name, refused ? "refused" : result);
  if (result.error?.kind === "invalid_arguments" || result.error?.kind === "blocked_destination") {
    throw new Failure(
      "tool-call-refused",
      result.error.message,
      result.error.argument === undefined ? undefined : [{ path: result.error.argument, message: result.error.message }],
    );
  }
  return c.json(result, 200);
};

/** Tool registry routes: import, list, read, replace, delete, call. */
export function registerToolEndpoints(app: OpenAPIHono<AppEnv>): void {
  registerImportUploadRoute(app);
  app.openapi(importRoute, importTools, importRequestHook);
  app.openapi(listRoute, listTools);
  app.openapi(readRoute, readTool);
  app.openapi(replaceRoute, replaceTool);
  app.openapi(deleteRoute, deleteTool);
  app.openapi(callRoute, callTool);
}
