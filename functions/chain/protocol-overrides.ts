import type { TenantApi } from "../../durable-objects/tenant-api";
import type { ProtocolStore } from "../probing/protocol-store";
import type { ToolDefinition } from "../tools/definition";
import type { ProtocolOverrides } from "./typed-api";

/**
 * The current documented protocol of each tool, as prompt overrides: only protocols made for the
 * tool's current definition (same hash) count, so a changed tool falls back to its registered
 * documentation until it is probed again (as does one whose stored value is malformed).
 */
export async function protocolOverrides(store: ProtocolStore, tenant: Pick<TenantApi, "protocols">, tools: ToolDefinition[], hashes: Map<string, string>): Promise<Map<string, ProtocolOverrides>> {
  const current = await tenant.protocols.currentMany(tools.map((t) => t.name));
  const stored = await store.readAll(current.filter((p) => hashes.get(p.tool) === p.hash));
  const overrides = new Map<string, ProtocolOverrides>();
  for (const [tool, { description, jsonSchema, example }] of stored) {
    overrides.set(tool, {
      ...(description === undefined || description === "" ? {} : { description }),
      ...(jsonSchema === undefined ? {} : { responseSchema: jsonSchema }),
      ...(example === undefined ? {} : { example: { query: example.query, program: example.program } }),
    });
  }
  return overrides;
}
