import { z } from "zod";
import type { TenantApi } from "../tenant-api/tenant-api";
import { registerTools } from "../services/register";

/** What a tool-change webhook may carry: a document, a list, and/or names of changed tools. */
export const WebhookBody = z
  .object({
    openapi: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe("An OpenAPI 3.x document"),
    serverUrl: z.string().url().optional(),
    tools: z.unknown().optional().describe("A bare tool list (as for POST /v1/tools/import)"),
    changed: z.array(z.string().min(1).max(200)).max(1_000).optional().describe("Registered tools to probe again"),
    source: z.string().min(1).max(200).default("webhook"),
    prune: z.boolean().default(false),
  })
  .strict()
  .refine((b) => b.openapi !== undefined || b.tools !== undefined || (b.changed?.length ?? 0) > 0, {
    message: "give `openapi`, `tools` or `changed`",
  });
export type WebhookBody = z.infer<typeof WebhookBody>;

/**
 * Apply a verified delivery: update the registry, then start one probe job for the tools that
 * were created or changed (unchanged ones are never probed again). The delivery id is the job's
 * dedupe key, so a redelivery cannot start a second job.
 */
export async function importChangedTools(
  env: Env,
  tenantId: string,
  tenant: TenantApi,
  body: WebhookBody,
  deliveryId: string,
): Promise<{ jobId: string | null; changed: string[]; unchanged: number }> {
  const changed = new Set<string>();
  let unchanged = 0;
  if (body.openapi !== undefined) {
    const report = await registerTools(
      env,
      tenantId,
      tenant,
      { format: "openapi", document: body.openapi, serverUrl: body.serverUrl },
      body.source,
      body.prune,
    );
    for (const name of [...report.created, ...report.updated]) changed.add(name);
    unchanged += report.unchanged.length;
  }
  if (body.tools !== undefined) {
    const report = await registerTools(env, tenantId, tenant, { format: "list", tools: body.tools }, body.source, body.prune);
    for (const name of [...report.created, ...report.updated]) changed.add(name);
    unchanged += report.unchanged.length;
  }
  for (const name of body.changed ?? []) {
    if ((await tenant.registry.getTool(name)) !== undefined) changed.add(name);
  }
  if (changed.size === 0) return { jobId: null, changed: [], unchanged };
  const names = [...changed].sort();
  const job = await tenant.jobs.create("probe", { tools: names, reason: "webhook", deliveryId }, `webhook:${deliveryId}`);
  return { jobId: job.id, changed: names, unchanged };
}
