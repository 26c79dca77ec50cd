import type { TenantApi } from "../tenant-api/tenant-api";
import { serviceToolLimits } from "../common/run-defaults";
import type { ToolDefinition } from "../tools/definition";
import { allowedOrigins } from "../tools/safe-call/allowed-origins";
import { localNameResolver } from "../tools/safe-call/local-name-resolver";
import { callMcpTool } from "../tools/mcp-call";
import { openCallCredential } from "./call-credential";
import { callTool, type SafeCallOptions, type ToolCallResult } from "../tools/safe-call";

/** Per-call limits a caller (a run, a probe) may tighten; never loosen past the service's. */
export interface CallLimits {
  timeoutMs?: number;
  maxResponseBytes?: number;
  /**
   * Answer from this instead of the tool's server (a simulated copy of the tool, for operations
   * that would change real data): nothing leaves the Worker, and no credential is injected.
   */
  simulate?: typeof fetch;
  /** Call with a changed definition (tool play explores arguments the documentation lacks). */
  adaptDefinition?: (definition: ToolDefinition) => ToolDefinition;
}

export type InvokeOutcome = { found: false } | { found: true; result: ToolCallResult };

/**
 * Call one of a tenant's tools by name: the single path every feature uses. The credential is
 * decrypted here, injected by the safe-call module, and never leaves this function.
 */
export async function invokeTool(
  env: Env,
  tenantId: string,
  tenant: { registry: Pick<TenantApi["registry"], "toolForCall" | "cachedToken" | "cacheToken"> },
  name: string,
  args: Record<string, unknown>,
  limits: CallLimits = {},
): Promise<InvokeOutcome> {
  const found = await tenant.registry.toolForCall(name);
  if (found === undefined) return { found: false };
  const { tool, credential } = found;
  const { timeoutMs: serviceTimeout, maxResponseBytes: serviceMaxBytes } = serviceToolLimits(env);
  const definition = limits.adaptDefinition === undefined ? tool.definition : limits.adaptDefinition(tool.definition);
  const simulate = limits.simulate;
  // A simulated call reaches no network, so no name is looked up for it.
  const resolveName = simulate === undefined ? localNameResolver(env) : undefined;
  const options: SafeCallOptions = {
    fetch: simulate ?? ((input, init) => fetch(input, init)),
    timeoutMs: Math.min(limits.timeoutMs ?? serviceTimeout, serviceTimeout),
    maxResponseBytes: Math.min(limits.maxResponseBytes ?? serviceMaxBytes, serviceMaxBytes),
    allowedOrigins: simulate === undefined ? allowedOrigins(env) : { [new URL(definition.serverUrl).origin]: { fetch: simulate } },
    resolveName,
  };
  const call = (withCredential: SafeCallOptions): Promise<ToolCallResult> => {
    const { mcp } = definition;
    return mcp === undefined ? callTool(definition, args, withCredential) : callMcpTool({ ...definition, mcp }, args, withCredential);
  };
  // A simulated call reaches no real server, so it gets no credential (and fetches no token).
  if (credential === undefined || simulate !== undefined) return { found: true, result: await call(options) };
  const network = { fetch: options.fetch, allowedOrigins: allowedOrigins(env), resolveName, timeoutMs: options.timeoutMs ?? serviceTimeout };
  const opened = await openCallCredential(env, tenantId, tenant.registry, credential, definition, network);
  if (!opened.ok) return { found: true, result: tokenUnavailable(definition, opened.message) };
  const result = await call({ ...options, credential: opened.credential });
  if (result.status !== 401 || !opened.reused) return { found: true, result };
  // The API refused a cached token before its stated expiry (revoked, rotated): fetch a new one once.
  const renewed = await openCallCredential(env, tenantId, tenant.registry, credential, definition, network, true);
  if (!renewed.ok) return { found: true, result: tokenUnavailable(definition, renewed.message) };
  return { found: true, result: await call({ ...options, credential: renewed.credential }) };
}

function tokenUnavailable(definition: ToolDefinition, message: string): ToolCallResult {
  return {
    ok: false,
    body: null,
    truncated: false,
    bytes: 0,
    durationMs: 0,
    request: { method: definition.method, url: `${definition.serverUrl}${definition.path}` },
    error: { kind: "token_unavailable", message: `no access token: ${message}` },
  };
}
