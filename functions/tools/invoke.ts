import type { TenantApi } from "../../durable-objects/tenant-api";
import { openSecret } from "../tenants/credential-crypto";
import { serviceToolLimits } from "../run-defaults";
import { credentialsKey } from "../tenants/credentials-key";
import type { ToolDefinition } from "./definition";
import { callMcpTool } from "./mcp-call";
import { callTool, type SafeCallOptions, type ToolCallResult } from "./safe-call";


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

/**
 * The origins that this deployment lets tool calls reach despite the destination guard: only the
 * simulated tool world, and only when both its origin and its binding are configured.
 */
export function allowedOrigins(env: Env): SafeCallOptions["allowedOrigins"] {
  const origin = env.SIMULATED_WORLD_ORIGIN;
  const world = env.SIMULATED_WORLD;
  if (origin === undefined || origin === "" || world === undefined) return {};
  const fetchViaWorld: typeof fetch = (input, init) => world.fetch(new Request(input, init));
  return { [new URL(origin).origin]: { fetch: fetchViaWorld } };
}

export type InvokeOutcome = { found: false } | { found: true; result: ToolCallResult };

/**
 * Call one of a tenant's tools by name: the single path every feature uses. The credential is
 * decrypted here, injected by the safe-call module, and never leaves this function.
 */
export async function invokeTool(
  env: Env,
  tenantId: string,
  tenant: Pick<TenantApi, "registry">,
  name: string,
  args: Record<string, unknown>,
  limits: CallLimits = {},
): Promise<InvokeOutcome> {
  const found = await tenant.registry.toolForCall(name);
  if (found === undefined) return { found: false };
  const { tool, credential } = found;
  let injected: SafeCallOptions["credential"];
  if (credential !== undefined) {
    const value = await openSecret(credentialsKey(env), tenantId, credential.id, { ciphertext: credential.ciphertext, iv: credential.iv });
    injected = { scheme: credential.scheme, in: credential.in, ...(credential.name === null ? {} : { name: credential.name }), value };
  }
  const { timeoutMs: serviceTimeout, maxResponseBytes: serviceMaxBytes } = serviceToolLimits(env);
  const definition = limits.adaptDefinition === undefined ? tool.definition : limits.adaptDefinition(tool.definition);
  const simulate = limits.simulate;
  const options: SafeCallOptions = {
    fetch: simulate ?? ((input, init) => fetch(input, init)),
    ...(injected === undefined || simulate !== undefined ? {} : { credential: injected }),
    timeoutMs: Math.min(limits.timeoutMs ?? serviceTimeout, serviceTimeout),
    maxResponseBytes: Math.min(limits.maxResponseBytes ?? serviceMaxBytes, serviceMaxBytes),
    allowedOrigins: simulate === undefined ? allowedOrigins(env) : { [new URL(definition.serverUrl).origin]: { fetch: simulate } },
  };
  const { mcp } = definition;
  const result = mcp === undefined ? await callTool(definition, args, options) : await callMcpTool({ ...definition, mcp }, args, options);
  return { found: true, result };
}
