import type { CurrentProtocol } from "../storage/tenant-protocols";
import type { ProtocolStore, StoredProtocol } from "../storage/protocol-store";
import type { ToolDefinition } from "../tools/definition";
import { signatureTokens } from "../chain/tool-cost";
import type { ProtocolOverrides } from "../chain/typed-api";

/** What a run prompt shows of a tool from its stored protocol: description, response schema, example. */
export function promptOverrides(protocol: Pick<StoredProtocol, "description" | "jsonSchema" | "example">): ProtocolOverrides {
  const { description, jsonSchema, example } = protocol;
  return {
    ...(description === undefined || description === "" ? {} : { description }),
    ...(jsonSchema === undefined ? {} : { responseSchema: jsonSchema }),
    ...(example === undefined ? {} : { example: { query: example.query, program: example.program } }),
  };
}

/**
 * The tokens a run prompt spends on `def` while `protocol` is its current protocol (the typed
 * signature with the protocol's overrides): recorded with the protocol version, so that run
 * candidate sets spend what the prompt will show.
 */
export function protocolRunTokens(def: ToolDefinition, protocol: Pick<StoredProtocol, "description" | "jsonSchema" | "example">): number {
  return signatureTokens(def, promptOverrides(protocol));
}

/**
 * The documented protocols of a run's tools, as prompt overrides: `current` holds only protocols
 * made for their tool's current definition (the tenant object picks them), so a changed tool falls
 * back to its registered documentation until it is probed again (as does one whose stored value
 * is malformed).
 */
export async function protocolOverrides(store: ProtocolStore, current: CurrentProtocol[]): Promise<Map<string, ProtocolOverrides>> {
  const stored = await store.readAll(current);
  const overrides = new Map<string, ProtocolOverrides>();
  for (const [tool, protocol] of stored) overrides.set(tool, promptOverrides(protocol));
  return overrides;
}
