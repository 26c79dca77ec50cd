import type { TenantApi } from "../http/auth";
import { ApiError } from "../http/problem";
import { embedNewTools } from "../routing/tool-embeddings";
import { contentHash } from "./content-hash";
import type { ToolDefinition } from "./definition";
import { importToolList } from "./list-import";
import { importOpenApi, ToolImportError } from "./openapi-import";

export type ToolSource =
  | { format: "openapi"; document: string | Record<string, unknown>; serverUrl?: string | undefined }
  | { format: "list"; tools: unknown };

export interface RegisterReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  warnings: string[];
}

/** Parse a tool source into definitions; bad documents become a 422 problem. */
export async function parseToolSource(source: ToolSource): Promise<{ tools: ToolDefinition[]; warnings: string[] }> {
  try {
    return source.format === "openapi"
      ? await importOpenApi(source.document, source.serverUrl === undefined ? {} : { serverUrl: source.serverUrl })
      : importToolList(source.tools);
  } catch (error) {
    if (error instanceof ToolImportError) {
      const errors = error.issues.map((issue) => ({ path: error.code, message: issue }));
      throw new ApiError("invalid-document", error.message, errors.length > 0 ? errors : undefined);
    }
    throw error;
  }
}

/**
 * Register (create or update) the tools of a source for a tenant; unchanged tools stay untouched.
 * When an embeddings model is configured, new and changed tools are embedded here, once.
 */
export async function registerTools(env: Env, tenantId: string, tenant: TenantApi, source: ToolSource, label: string, prune: boolean): Promise<RegisterReport> {
  const { tools, warnings } = await parseToolSource(source);
  const upserts = await Promise.all(tools.map(async (definition) => ({ definition, hash: await contentHash(definition) })));
  const report = await tenant.upsertTools(upserts, label, prune);
  const embedded = await embedNewTools(env, tenantId, tenant);
  return { ...report, warnings: embedded.warning === undefined ? warnings : [...warnings, embedded.warning] };
}
