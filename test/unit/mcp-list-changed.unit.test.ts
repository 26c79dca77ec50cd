import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { describe, expect, it, vi } from "vitest";
import { watchToolList } from "../../functions/http/mcp/list-changed";
import type { McpTenantContext } from "../../functions/http/mcp/service-tools";

/**
 * The list_changed watch of an MCP GET stream looks at the tenant's catalog when the stream opens
 * and every poll. Every MCP client opens such a stream per connection, so what a look costs is
 * paid by every conversation: it must not grow with the catalog.
 */

const POLL_MS = 20;
/** Waiting for a look or a notification: as long as a loaded machine may need, checked often. */
const UNTIL = { timeout: 20_000, interval: 10 };
/** The service tools alone (a tenant that lists none of its own tools directly). */
const listing = async () => [{ name: "find_tools", inputSchema: { type: "object" as const } }];

/** A tenant of `size` tools whose registry counts the reads that touch every tool's definition. */
function tenantOf(size: number) {
  const catalog = new Map(Array.from({ length: size }, (_, i) => [`tool${i}`, `hash${i}`]));
  const reads = { everyDefinition: 0, stamps: 0 };
  const registry = {
    listTools: async () => {
      reads.everyDefinition += 1;
      return [...catalog].map(([name, hash]) => ({ definition: { name }, hash }));
    },
    catalogStamp: async () => {
      reads.stamps += 1;
      return [...catalog].map(([name, hash]) => `${name}=${hash}`).join(",");
    },
  };
  const context = { env: {}, tenantId: "t", tenant: { registry } } as unknown as McpTenantContext;
  return { catalog, reads, context };
}

function serverSpy() {
  const notified = vi.fn(async () => undefined);
  return { server: { sendToolListChanged: notified, close: async () => undefined } as unknown as Server, notified };
}

describe("MCP list_changed watch", () => {
  it("looks at the catalog through the registry's stamp, never by reading every tool's definition", async () => {
    const { reads, context } = tenantOf(4_000);
    const { server } = serverSpy();
    const watch = watchToolList(server, context, { pollMs: POLL_MS, lifetimeMs: 60_000, listing });
    // The opening look and two polls, however each looked.
    await vi.waitFor(() => expect(reads.stamps + reads.everyDefinition).toBeGreaterThanOrEqual(3), UNTIL);
    watch.stop();
    expect(reads.everyDefinition).toBe(0);
  });

  it("still notices a tool added or changed, and stays silent while nothing changes", async () => {
    const { catalog, reads, context } = tenantOf(3);
    const { server, notified } = serverSpy();
    const watch = watchToolList(server, context, { pollMs: POLL_MS, lifetimeMs: 60_000, listing });
    await vi.waitFor(() => expect(reads.stamps).toBeGreaterThanOrEqual(3), UNTIL);
    expect(notified).not.toHaveBeenCalled();
    catalog.set("tool1", "a new definition's hash");
    await vi.waitFor(() => expect(notified).toHaveBeenCalledTimes(1), UNTIL);
    catalog.set("tool3", "hash3");
    await vi.waitFor(() => expect(notified).toHaveBeenCalledTimes(2), UNTIL);
    watch.stop();
  });
});
