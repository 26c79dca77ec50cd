import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpTenantContext } from "./service-tools";

/** The tools a tenant's server lists (server.ts `listTenantTools`). */
export type TenantListing = (context: McpTenantContext) => Promise<Tool[]>;

/**
 * `notifications/tools/list_changed` over the stateless transport: the only stream that outlives a
 * request is the client's optional GET stream, so while one is open the Worker re-reads the
 * tenant's tool listing every `pollMs` and notifies when it differs. The stream ends after
 * `lifetimeMs` (clients reconnect) or when the client goes away; a POST-only client gets no
 * notifications.
 */
export function watchToolList(
  server: Server,
  context: McpTenantContext,
  options: { pollMs: number; lifetimeMs: number; listing: TenantListing },
): { stop(): void } {
  const ends = Date.now() + options.lifetimeMs;
  let stopped = false;
  const look = () => fingerprint(context, options.listing);
  let last: Promise<string> = look();
  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (Date.now() >= ends) {
      await server.close().catch(() => undefined);
      return;
    }
    try {
      const [before, now] = await Promise.all([last, look()]);
      last = Promise.resolve(now);
      if (now !== before && !stopped) await server.sendToolListChanged();
    } catch {
      // A failed check (object restarting) is retried at the next tick.
    }
    setTimeout(() => void tick(), options.pollMs);
  };
  setTimeout(() => void tick(), options.pollMs);
  return {
    stop() {
      stopped = true;
    },
  };
}

/** The stream as is, calling `onCancelled` when it ends or the client goes away (the runtime cancels it). */
export function onCancel(body: ReadableStream<Uint8Array>, onCancelled: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        onCancelled();
        controller.close();
      } else {
        controller.enqueue(value);
      }
    },
    cancel(reason) {
      onCancelled();
      return reader.cancel(reason);
    },
  });
}

/**
 * The listing a client would see, plus the registry's stamp of every tool's name and content hash
 * (one short string: every stream takes a look when it opens, and reading every definition there
 * grew each MCP conversation's cost with the catalog).
 */
async function fingerprint(context: McpTenantContext, listing: TenantListing): Promise<string> {
  const [tools, catalog] = await Promise.all([listing(context), context.tenant.registry.catalogStamp()]);
  const text = JSON.stringify([tools.map((t) => [t.name, t.description, t.inputSchema]), catalog]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
