import { describe, expect, it } from "vitest";
import { topRoutedTools } from "../../functions/http/mcp/routed-tools";
import type { TenantApi } from "../../functions/tenant-api/tenant-api";
import { START } from "../../functions/toolnet/graph/node-ids";

/**
 * The tools an MCP server lists directly (`routedTools` > 0) for clients that cannot search. An
 * open MCP stream looks at this listing every poll, so it reads the definitions of the tools it
 * lists, never every tool's.
 */

function tenantOf(size: number, edges: { from: string; to: string; count: number; weight: number }[]) {
  const names = Array.from({ length: size }, (_, i) => `tool${String(i).padStart(4, "0")}`);
  const reads = { everyDefinition: 0, definitionsRead: 0 };
  const record = (name: string) => ({
    definition: { name, method: "GET", url: `https://api.example.com/${name}`, description: `Tool ${name}`, parameters: [] },
  });
  const registry = {
    listTools: async () => {
      reads.everyDefinition += 1;
      reads.definitionsRead += names.length;
      return names.map(record);
    },
    toolNames: async () => [...names],
    toolsNamed: async (asked: readonly string[]) => {
      const found = asked.filter((name) => names.includes(name));
      reads.definitionsRead += found.length;
      return found.map(record);
    },
  };
  const routing = { weightedEdges: async () => ({ nodes: [], edges }) };
  return { tenant: { registry, routing } as unknown as TenantApi, reads, names };
}

describe("the tools an MCP server lists directly", () => {
  it("are ranked by traffic, then by the weight of starting with them, then by name, reading only the listed tools' definitions", async () => {
    const { tenant, reads } = tenantOf(3_000, [
      { from: START, to: "tool0500", count: 2, weight: 0.2 },
      { from: "tool0500", to: "tool2000", count: 5, weight: 0.9 },
      { from: START, to: "tool1000", count: 2, weight: 0.7 },
    ]);
    const listed = await topRoutedTools(tenant, 5);
    expect(listed.map((tool) => tool.function.name)).toEqual(["tool2000", "tool1000", "tool0500", "tool0000", "tool0001"]);
    expect(reads.everyDefinition).toBe(0);
    expect(reads.definitionsRead).toBe(5);
  });

  it("list nothing and read nothing when off", async () => {
    const { tenant, reads } = tenantOf(10, []);
    expect(await topRoutedTools(tenant, 0)).toEqual([]);
    expect(reads.definitionsRead).toBe(0);
  });
});
