import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { protocolStore } from "../../storage/protocol-store";
import { ToolName } from "../../tools/definition";
import type { AppEnv } from "../app-env";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { Failure } from "../../common/failures";

const Versions = z
  .object({ current: z.record(z.string(), z.unknown()).nullable(), versions: z.array(z.record(z.string(), z.unknown())) })
  .openapi("ProtocolVersions");

/** A tool's documented protocol (probed or optimised), its versions, pinning and roll-back. */
export function registerProtocolEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/tools/{name}/protocol",
      tags: ["probing"],
      summary: "The tool's current documented protocol",
      security: tenantSecurity,
      request: { params: z.object({ name: ToolName }) },
      responses: {
        200: { description: "Protocol", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
        ...problems(401, 404, 500),
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const tool = await c.var.tenant.registry.getTool(name);
      if (tool === undefined) throw new Failure("not-found", `No tool named ${name}.`);
      const [current] = await c.var.tenant.protocols.currentMany([name]);
      if (current === undefined) throw new Failure("not-found", `${name} has no documented protocol yet: probe it (POST /v1/probe).`);
      const read = await protocolStore(c.env, c.var.tenantId).read(current.kvKey);
      if (read.status === "malformed")
        throw new Failure(
          "internal",
          `The stored protocol of ${name} (version ${current.version}) is malformed and is not used; probe the tool again or pin another version.`,
        );
      // A value written moments ago may not have reached this location yet (KV is eventually consistent).
      return c.json({ ...current, stale: current.hash !== tool.hash, protocol: read.status === "found" ? read.protocol : null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/tools/{name}/protocol/versions",
      tags: ["probing"],
      summary: "Every protocol version of a tool, and which is current",
      security: tenantSecurity,
      request: { params: z.object({ name: ToolName }) },
      responses: { 200: { description: "Versions", content: { "application/json": { schema: Versions } } }, ...problems(401, 404) },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      if ((await c.var.tenant.registry.getTool(name)) === undefined) throw new Failure("not-found", `No tool named ${name}.`);
      const [current] = await c.var.tenant.protocols.currentMany([name]);
      const versions = await c.var.tenant.protocols.versions(name);
      return c.json({ current: current === undefined ? null : { ...current }, versions: versions.map((v) => ({ ...v })) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/tools/{name}/protocol/pin",
      tags: ["probing"],
      summary: "Pin a version as current (roll back or forward), or unpin with `version: null`",
      security: tenantSecurity,
      request: { params: z.object({ name: ToolName }), body: jsonBody(z.object({ version: z.number().int().min(1).nullable() }).strict()) },
      responses: {
        200: { description: "Current protocol", content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } },
        ...problems(400, 401, 404),
      },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const { version } = c.req.valid("json");
      const current = await c.var.tenant.protocols.pin(name, version ?? undefined);
      if (current === undefined) throw new Failure("not-found", version === null ? `${name} has no protocol.` : `${name} has no protocol version ${version}.`);
      return c.json({ ...current }, 200);
    },
  );
}
