import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { listTenantTools } from "./server";
import type { McpTenantContext } from "./service-tools";

/**
 * `notifications/tools/list_changed` over the stateless transport: the only stream that outlives a
 * request is the client's optional GET stream, so while one is open the Worker re-reads the
 * tenant's tool listing every `pollMs` and notifies when it differs. The stream ends after
 * `lifetimeMs` (clients reconnect); a POST-only client gets no notifications.
 */
export function watchToolList(server: Server, context: McpTenantContext, options: { pollMs: number; lifetimeMs: number }): void {
  const ends = Date.now() + options.lifetimeMs;
  let last: Promise<string> = fingerprint(context);
  const tick = async (): Promise<void> => {
    if (Date.now() >= ends) {
      await server.close().catch(() => undefined);
      return;
    }
    try {
      const [before, now] = await Promise.all([last, fingerprint(context)]);
      last = Promise.resolve(now);
      if (now !== before) await server.sendToolListChanged();
    } catch {
      // A failed check (object restarting) is retried at the next tick.
    }
    setTimeout(() => void tick(), options.pollMs);
  };
  setTimeout(() => void tick(), options.pollMs);
}

/** The listing a client would see, plus every registered tool's name and content hash. */
async function fingerprint(context: McpTenantContext): Promise<string> {
  const [tools, tenantTools] = await Promise.all([listTenantTools(context), context.tenant.listTools()]);
  const text = JSON.stringify([tools.map((t) => [t.name, t.description, t.inputSchema]), tenantTools.map((t) => [t.definition.name, t.hash])]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
