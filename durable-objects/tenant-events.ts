import type { ToolDefinition } from "../functions/tools/definition";

/** Tools created or changed (with their new definition hash) and tools removed, in one write. */
export interface ToolsChange {
  upserted: { definition: ToolDefinition; hash: string }[];
  removed: string[];
}

/**
 * What one store tells the others inside a tenant object: the registry's tool changes and a new
 * current protocol. Listeners run synchronously inside the writer's transaction, so derived state
 * (graph, index, tool views) never disagrees with the registry. Not reachable over RPC.
 */
export class TenantEvents {
  readonly #toolListeners: ((change: ToolsChange) => void)[] = [];
  readonly #protocolListeners: ((tool: string) => void)[] = [];

  onToolsChanged(listener: (change: ToolsChange) => void): void {
    this.#toolListeners.push(listener);
  }

  onProtocolChanged(listener: (tool: string) => void): void {
    this.#protocolListeners.push(listener);
  }

  toolsChanged(change: ToolsChange): void {
    if (change.upserted.length === 0 && change.removed.length === 0) return;
    for (const listener of this.#toolListeners) listener(change);
  }

  protocolChanged(tool: string): void {
    for (const listener of this.#protocolListeners) listener(tool);
  }
}
