import { START } from "../../toolnet/graph/node-ids";
import { openAiTool, type OpenAiTool } from "../../toolnet/openai-tools";
import type { TenantApi } from "../../tenant-api/tenant-api";

/**
 * The tools a tenant's routing uses most, for clients that cannot search: ranked by the
 * transitions into each tool in the ToolNet graph (trajectories and runs), then by the learned
 * weight of starting with it, then by name. Tools never routed fill the rest of the cap.
 */
export async function topRoutedTools(tenant: TenantApi, cap: number): Promise<OpenAiTool[]> {
  if (cap <= 0) return [];
  // Ranked by name and the graph alone; only the listed tools' definitions are read (an MCP
  // client's stream looks at this listing every poll, whatever the catalog's size).
  const [names, graph] = await Promise.all([tenant.registry.toolNames(), tenant.routing.weightedEdges()]);
  const traffic = new Map<string, number>();
  const startWeight = new Map<string, number>();
  for (const edge of graph.edges) {
    traffic.set(edge.to, (traffic.get(edge.to) ?? 0) + edge.count);
    if (edge.from === START) startWeight.set(edge.to, edge.weight);
  }
  const top = [...names]
    .sort((a, b) => (traffic.get(b) ?? 0) - (traffic.get(a) ?? 0) || (startWeight.get(b) ?? 0) - (startWeight.get(a) ?? 0) || (a < b ? -1 : 1))
    .slice(0, cap);
  const records = new Map((await tenant.registry.toolsNamed(top)).map((tool) => [tool.definition.name, tool]));
  // A tool removed between the two reads is left out.
  return top.flatMap((name) => {
    const tool = records.get(name);
    return tool === undefined ? [] : [openAiTool(tool.definition)];
  });
}
