import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { TENANT_ID_PATTERN } from "../../tenants/api-keys";
import type { AppEnv } from "../app-env";
import { tenantStub } from "../../tenant-api/tenant-api";
import { adminSecurity, jsonBody, problems, tenantSecurity } from "../openapi-common";
import { unwrap, Failure } from "../../common/failures";
import { directory, tenantExists } from "../tenant-directory";

const TenantId = z.string().regex(TENANT_ID_PATTERN, "3–40 characters: a-z, 0-9 and -, not starting or ending with -");

const ApiKeySummary = z
  .object({ id: z.string(), prefix: z.string(), label: z.string().nullable(), createdAt: z.string(), revokedAt: z.string().nullable() })
  .openapi("ApiKeySummary");
const NewApiKey = ApiKeySummary.extend({ key: z.string().describe("The API key; shown once, never again") }).openapi("NewApiKey");
const Tenant = z.object({ id: z.string(), name: z.string(), createdAt: z.string() }).openapi("Tenant");
const TenantInfo = Tenant.extend({ toolCount: z.number().int() }).openapi("TenantInfo");
const CreateTenant = z
  .object({ id: TenantId, name: z.string().min(1).max(200).optional() })
  .strict()
  .openapi("CreateTenant");
const CreateKey = z
  .object({ label: z.string().max(200).optional() })
  .strict()
  .openapi("CreateKey");

/** Admin routes (on the admin sub-app, under /admin): tenants and their keys. */
export function registerAdminEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/tenants",
      tags: ["admin"],
      summary: "Create a tenant and its first API key",
      security: adminSecurity,
      request: { body: jsonBody(CreateTenant) },
      responses: {
        201: { description: "Created", content: { "application/json": { schema: z.object({ tenant: Tenant, apiKey: NewApiKey }) } } },
        ...problems(400, 401, 409, 503),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const listing = { id: body.id, name: body.name ?? body.id, createdAt: new Date().toISOString() };
      unwrap(await directory(c.env).register(listing));
      const stub = tenantStub(c.env, body.id);
      const created = await stub.registry.initialize(listing.id, listing.name);
      if (!created.ok) {
        await directory(c.env).unregister(body.id);
        unwrap(created);
      }
      const apiKey = unwrap(await stub.registry.createKey("initial"));
      return c.json({ tenant: listing, apiKey }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/tenants",
      tags: ["admin"],
      summary: "List tenants",
      security: adminSecurity,
      responses: {
        200: { description: "Tenants", content: { "application/json": { schema: z.object({ tenants: z.array(Tenant) }) } } },
        ...problems(401, 503),
      },
    }),
    async (c) => c.json({ tenants: await directory(c.env).list() }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/tenants/{tenantId}/keys",
      tags: ["admin"],
      summary: "Issue an API key for a tenant",
      security: adminSecurity,
      request: { params: z.object({ tenantId: TenantId }), body: jsonBody(CreateKey) },
      responses: {
        201: { description: "Created", content: { "application/json": { schema: NewApiKey } } },
        ...problems(400, 401, 404, 503),
      },
    }),
    async (c) => {
      const { tenantId } = c.req.valid("param");
      const { label } = c.req.valid("json");
      if (!(await tenantExists(c.env, tenantId))) throw new Failure("not-found", "no such tenant");
      return c.json(unwrap(await tenantStub(c.env, tenantId).registry.createKey(label ?? null)), 201);
    },
  );
}

/** The calling tenant and its own keys (on the tenant sub-app, under /v1). */
export function registerTenantKeyEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/tenant",
      tags: ["tenant"],
      summary: "The calling tenant",
      security: tenantSecurity,
      responses: { 200: { description: "Tenant", content: { "application/json": { schema: TenantInfo } } }, ...problems(401) },
    }),
    async (c) => {
      const info = await c.var.tenant.registry.info();
      if (info === undefined) throw new Failure("not-found", "no such tenant");
      return c.json(info, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/keys",
      tags: ["tenant"],
      summary: "List API keys (prefixes only)",
      security: tenantSecurity,
      responses: {
        200: { description: "Keys", content: { "application/json": { schema: z.object({ keys: z.array(ApiKeySummary) }) } } },
        ...problems(401),
      },
    }),
    async (c) => c.json({ keys: await c.var.tenant.registry.listKeys() }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/keys",
      tags: ["tenant"],
      summary: "Issue another API key",
      security: tenantSecurity,
      request: { body: jsonBody(CreateKey) },
      responses: { 201: { description: "Created", content: { "application/json": { schema: NewApiKey } } }, ...problems(400, 401) },
    }),
    async (c) => c.json(unwrap(await c.var.tenant.registry.createKey(c.req.valid("json").label ?? null)), 201),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/keys/{keyId}",
      tags: ["tenant"],
      summary: "Revoke an API key, effective immediately",
      security: tenantSecurity,
      request: { params: z.object({ keyId: z.string().max(100) }) },
      responses: { 200: { description: "Revoked", content: { "application/json": { schema: ApiKeySummary } } }, ...problems(401, 404) },
    }),
    async (c) => c.json(unwrap(await c.var.tenant.registry.revokeKey(c.req.valid("param").keyId)), 200),
  );
}
