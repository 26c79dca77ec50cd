import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { listTenantTools } from "./server";
import type { McpTenantContext } from "./service-tools";

/**
 * `notifications/tools/list_changed` over the stateless transport: the only stream that outlives a
 * request is the client's optional GET stream, so while one is open the Worker re-reads the
 * tenant's tool listing every `pollMs` and notifies when it differs. The stream ends after
 * `lifetimeMs` (clients reconnect) or when the client goes away; a POST-only client gets no
 * notifications.
 */
export function watchToolList(server: Server, context: McpTenantContext, options: { pollMs: number; lifetimeMs: number }): { stop(): void } {
  const ends = Date.now() + options.lifetimeMs;
  let stopped = false;
  let last: Promise<string> = fingerprint(context);
  const tick = async (): Promise<void> => {
    if (stopped) return;
    if (Date.now() >= ends) {
      await server.close().catch(() => undefined);
      return;
    }
    try {
      const [before, now] = await Promise.all([last, fingerprint(context)]);
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

/** The listing a client would see, plus every registered tool's name and content hash. */
async function fingerprint(context: McpTenantContext): Promise<string> {
  const [tools, tenantTools] = await Promise.all([listTenantTools(context), context.tenant.registry.listTools()]);
  const text = JSON.stringify([tools.map((t) => [t.name, t.description, t.inputSchema]), tenantTools.map((t) => [t.definition.name, t.hash])]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
