import type { ToolDefinition } from "../tools/definition";

/** Tools created or changed (with their new definition hash) and tools removed, in one write. */
export interface ToolsChange {
  upserted: { definition: ToolDefinition; hash: string }[];
  removed: string[];
  /** The server URL each updated or removed tool had before the change (its API's operations change documents too). */
  formerServers: ReadonlyMap<string, string>;
}

/**
 * What one store tells the others inside a tenant object: the registry's tool changes and a new
 * current protocol. Listeners run synchronously inside the writer's transaction, so derived state
 * (graph, index, tool views) never disagrees with the registry. Not reachable over RPC.
 */
export class TenantEvents {
  readonly #toolListeners: ((change: ToolsChange) => void)[] = [];
  readonly #protocolListeners: ((tool: string) => void)[] = [];
  #generation = 0;

  /**
   * Moves on with every change, before any listener hears of it: a value derived from tools and
   * protocols is current while the generation it was made at is, whichever listener runs first.
   */
  get generation(): number {
    return this.#generation;
  }

  onToolsChanged(listener: (change: ToolsChange) => void): void {
    this.#toolListeners.push(listener);
  }

  onProtocolChanged(listener: (tool: string) => void): void {
    this.#protocolListeners.push(listener);
  }

  toolsChanged(change: ToolsChange): void {
    if (change.upserted.length === 0 && change.removed.length === 0) return;
    this.#generation++;
    for (const listener of this.#toolListeners) listener(change);
  }

  protocolChanged(tool: string): void {
    this.#generation++;
    for (const listener of this.#protocolListeners) listener(tool);
  }
}
