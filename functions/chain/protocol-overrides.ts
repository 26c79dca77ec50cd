import { z } from "zod";
import type { TenantApi } from "../../durable-objects/tenant-api";
import type { ToolDefinition } from "../tools/definition";
import type { ProtocolOverrides } from "./typed-api";

/** The fields of a stored protocol (probed or optimised) that prompts use; parsed, not trusted. */
const StoredProtocolFields = z.looseObject({
  description: z.string().optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  example: z.object({ query: z.string(), program: z.string() }).optional(),
});

/**
 * The current documented protocol of each tool, as prompt overrides: only protocols made for the
 * tool's current definition (same hash) count, so a changed tool falls back to its registered
 * documentation until it is probed again.
 */
export async function protocolOverrides(env: Env, tenant: TenantApi, tools: ToolDefinition[], hashes: Map<string, string>): Promise<Map<string, ProtocolOverrides>> {
  const current = await tenant.protocols.currentMany(tools.map((t) => t.name));
  const overrides = new Map<string, ProtocolOverrides>();
  await Promise.all(
    current
      .filter((p) => hashes.get(p.tool) === p.hash)
      .map(async (p) => {
        const parsed = StoredProtocolFields.safeParse(await env.PROTOCOLS.get(p.kvKey, "json"));
        if (!parsed.success) return;
        const { description, jsonSchema, example } = parsed.data;
        overrides.set(p.tool, {
          ...(description === undefined || description === "" ? {} : { description }),
          ...(jsonSchema === undefined ? {} : { responseSchema: jsonSchema }),
          ...(example === undefined ? {} : { example }),
        });
      }),
  );
  return overrides;
}
