import type { TenantApi } from "../tenant-api/tenant-api";
import { unwrap } from "../common/failures";
import { embedNewTools } from "./tool-embeddings";
import { contentHash } from "../tools/content-hash";
import type { ToolDefinition } from "../tools/definition";
import { importToolList } from "../tools/list-import";
import { credentialFromHeaders, importMcpServer, type McpSource } from "../tools/mcp-import";
import { importOpenApi } from "../tools/openapi-import";
import { keepOtherSourcesTools } from "../tools/source-clash";
import { storeCredential } from "./store-credential";
import { queueExampleRequests } from "./example-requests-at-import";
import { assertWithinToolLimit, toolLimit } from "../tools/tool-limit";

export type ToolSource =
  | {
      format: "openapi";
      document: string | Record<string, unknown>;
      serverUrl?: string | undefined;
      /** Where it was fetched from (an import by URL): relative server URLs resolve against it. */
      documentUrl?: string | undefined;
    }
  | { format: "list"; tools: unknown };

export interface RegisterReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  warnings: string[];
  /** The job writing example requests for the created and changed tools, when one was queued. */
  examplesJob?: string;
}

/** Parse a tool source into definitions; a bad document fails as an invalid document (422, tools/import-error.ts). */
export async function parseToolSource(source: ToolSource): Promise<{ tools: ToolDefinition[]; warnings: string[] }> {
  return source.format === "openapi"
    ? await importOpenApi(source.document, {
        ...(source.serverUrl === undefined ? {} : { serverUrl: source.serverUrl }),
        ...(source.documentUrl === undefined ? {} : { documentUrl: source.documentUrl }),
      })
    : importToolList(source.tools);
}

/**
 * Register (create or update) the tools of a source for a tenant; unchanged tools stay untouched,
 * and another source's tools keep their names (tools/source-clash.ts: a clashing tool is renamed, with a warning).
 * When an embeddings model is configured, new and changed tools are embedded here, once.
 */
export async function registerTools(
  env: Env,
  tenantId: string,
  tenant: TenantApi,
  source: ToolSource | McpSource,
  label: string,
  prune: boolean,
): Promise<RegisterReport> {
  const parsed = source.format === "mcp" ? await listMcpServer(env, tenantId, tenant, source) : await parseToolSource(source);
  const separated = keepOtherSourcesTools(parsed.tools, label, await tenant.registry.toolsOfOtherSources(label));
  const tools = separated.tools;
  const warnings = [...parsed.warnings, ...separated.warnings];
  const upserts = await Promise.all(tools.map(async (definition) => ({ definition, hash: await contentHash(definition) })));
  const limit = toolLimit(env);
  assertWithinToolLimit(
    await tenant.registry.toolCountAfter(
      upserts.map((u) => u.definition.name),
      label,
      prune,
    ),
    limit,
  );
  // Checked again inside the object's transaction: a concurrent import may have added tools since.
  const report = unwrap(await tenant.registry.upsertTools(upserts, label, prune, limit));
  const embedded = await embedNewTools(env, tenantId, tenant);
  const examplesJob = await queueExampleRequests(env, tenantId, tenant, { source: label, tools: [...report.created, ...report.updated] });
  return {
    ...report,
    warnings: embedded.warning === undefined ? warnings : [...warnings, embedded.warning],
    ...(examplesJob === undefined ? {} : { examplesJob }),
  };
}

/**
 * An MCP server's tools, listed through the safe-call path. A single import header (a bearer
 * token or one API-key header) is stored, sealed, as the server's credential, so calls carry it.
 */
async function listMcpServer(env: Env, tenantId: string, tenant: TenantApi, source: McpSource): Promise<{ tools: ToolDefinition[]; warnings: string[] }> {
  const listed = await importMcpServer(env, source);
  const credential = credentialFromHeaders(source.headers);
  if (credential === "several") {
    return {
      ...listed,
      warnings: [
        ...listed.warnings,
        "several headers were sent for the import; none is stored, so calls send none: store the server's credential with PUT /v1/credentials",
      ],
    };
  }
  if (credential !== undefined) {
    const scope = { kind: "server" as const, value: source.url.replace(/\/+$/, "") };
    await storeCredential(env, tenantId, tenant, { scope, in: "header", ...credential });
    return { ...listed, warnings: [...listed.warnings, `the import header is stored, sealed, as the credential of server ${scope.value}; tool calls send it`] };
  }
  return listed;
}
