import { z } from "zod";
import type { TenantApi } from "../../tenant-api/tenant-api";

/** A tenant's MCP options, stored as the tenant setting `mcp`. */
export const McpSettings = z
  .object({
    routedTools: z
      .number()
      .int()
      .min(0)
      .max(50)
      .default(0)
      .describe("Also list this many of the tenant's most routed tools directly as MCP tools (for clients that cannot search); 0 = off"),
  })
  .strict();
export type McpSettings = z.infer<typeof McpSettings>;

const SETTING = "mcp";

/** The tenant's MCP settings, defaults filled. */
export async function readMcpSettings(tenant: TenantApi): Promise<McpSettings> {
  const stored = await tenant.settings.get(SETTING);
  return McpSettings.parse(stored === undefined ? {} : JSON.parse(stored));
}

/** Store the tenant's MCP settings. */
export async function writeMcpSettings(tenant: TenantApi, settings: McpSettings): Promise<void> {
  await tenant.settings.put(SETTING, JSON.stringify(settings));
}
