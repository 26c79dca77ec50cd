import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { credentialValueProblem, HEADER_NAME } from "../../tenants/credential-values";
import { storeCredential } from "../../services/store-credential";
import { ToolName } from "../../tools/definition";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { Failure } from "../../common/failures";

const Scope = z.union([
  z.object({ tool: ToolName }).strict(),
  z.object({ server: z.string().url().describe("Base URL; applies to every tool whose serverUrl starts with it") }).strict(),
]);

const PutCredential = z
  .object({
    scope: Scope,
    scheme: z
      .enum(["apiKey", "bearer", "oauth2ClientCredentials"])
      .describe(
        "`bearer` also serves OAuth 2 / OpenID Connect tools with a token you obtained; `oauth2ClientCredentials` makes the service fetch and refresh tokens itself",
      ),
    in: z.enum(["header", "query"]).default("header"),
    name: z.string().min(1).max(200).optional().describe("Header or query parameter name (apiKey)"),
    value: z.string().min(1).max(8_192).describe("The secret (for oauth2ClientCredentials: the client secret); stored encrypted, never returned"),
    clientId: z.string().min(1).max(1_000).optional().describe("oauth2ClientCredentials: the client id"),
    tokenUrl: z.string().url().optional().describe("oauth2ClientCredentials: the token endpoint; default: the one the tool's OpenAPI document gives"),
    scopes: z.array(z.string().min(1).max(200)).max(100).optional().describe("oauth2ClientCredentials: scopes to request"),
  })
  .strict()
  .refine((c) => c.scheme !== "apiKey" || c.name !== undefined, { message: "an apiKey credential needs `name`", path: ["name"] })
  .refine((c) => c.scheme !== "oauth2ClientCredentials" || c.clientId !== undefined, {
    message: "an oauth2ClientCredentials credential needs `clientId`",
    path: ["clientId"],
  })
  .refine((c) => c.scheme === "oauth2ClientCredentials" || (c.clientId === undefined && c.tokenUrl === undefined && c.scopes === undefined), {
    message: "clientId, tokenUrl and scopes belong to oauth2ClientCredentials credentials",
    path: ["scheme"],
  })
  .refine((c) => c.in !== "header" || c.name === undefined || HEADER_NAME.test(c.name), { message: "not a valid header name", path: ["name"] })
  .superRefine((c, ctx) => {
    const problem = credentialValueProblem(c.value, c.scheme === "bearer" ? "bearer" : c.scheme === "apiKey" ? c.in : "header");
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, path: ["value"] });
  })
  .openapi("PutCredential");

const CredentialSummary = z
  .object({
    id: z.string(),
    scope: z.object({ kind: z.enum(["tool", "server"]), value: z.string() }),
    scheme: z.enum(["apiKey", "bearer", "oauth2ClientCredentials"]),
    in: z.enum(["header", "query"]),
    name: z.string().nullable(),
    hint: z.string().describe("Masked: at most the last 4 characters of long secrets"),
    createdAt: z.string(),
  })
  .openapi("Credential");

/** Tool credentials: write-only secrets, listed as masked hints. */
export function registerCredentialEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "put",
      path: "/credentials",
      tags: ["credentials"],
      summary: "Store the credential for a tool or a server (replaces the previous one)",
      security: tenantSecurity,
      request: { body: jsonBody(PutCredential) },
      responses: {
        201: { description: "Stored", content: { "application/json": { schema: CredentialSummary } } },
        ...problems(400, 401, 503),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const scope =
        "tool" in body.scope ? { kind: "tool" as const, value: body.scope.tool } : { kind: "server" as const, value: body.scope.server.replace(/\/+$/, "") };
      const clientCredentials =
        body.clientId === undefined
          ? undefined
          : {
              clientId: body.clientId,
              ...(body.tokenUrl === undefined ? {} : { tokenUrl: body.tokenUrl }),
              ...(body.scopes === undefined ? {} : { scopes: body.scopes }),
            };
      const summary = await storeCredential(c.env, c.var.tenantId, c.var.tenant, {
        scope,
        scheme: body.scheme,
        in: body.in,
        name: body.name ?? null,
        value: body.value,
        clientCredentials,
      });
      return c.json(summary, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/credentials",
      tags: ["credentials"],
      summary: "List credentials (masked)",
      security: tenantSecurity,
      responses: {
        200: { description: "Credentials", content: { "application/json": { schema: z.object({ credentials: z.array(CredentialSummary) }) } } },
        ...problems(401),
      },
    }),
    async (c) => c.json({ credentials: await c.var.tenant.registry.listCredentials() }, 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/credentials/{id}",
      tags: ["credentials"],
      summary: "Delete a credential",
      security: tenantSecurity,
      request: { params: z.object({ id: z.string().max(100) }) },
      responses: { 204: { description: "Deleted" }, ...problems(401, 404) },
    }),
    async (c) => {
      if (!(await c.var.tenant.registry.deleteCredential(c.req.valid("param").id))) throw new Failure("not-found", "No such credential.");
      return c.body(null, 204);
    },
  );
}
