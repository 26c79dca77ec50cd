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
  const [tools, graph] = await Promise.all([tenant.registry.listTools(), tenant.routing.weightedEdges()]);
  const traffic = new Map<string, number>();
  const startWeight = new Map<string, number>();
  for (const edge of graph.edges) {
    traffic.set(edge.to, (traffic.get(edge.to) ?? 0) + edge.count);
    if (edge.from === START) startWeight.set(edge.to, edge.weight);
  }
  const ranked = [...tools].sort(
    (a, b) =>
      (traffic.get(b.definition.name) ?? 0) - (traffic.get(a.definition.name) ?? 0) ||
      (startWeight.get(b.definition.name) ?? 0) - (startWeight.get(a.definition.name) ?? 0) ||
      (a.definition.name < b.definition.name ? -1 : 1),
  );
  return ranked.slice(0, cap).map((tool) => openAiTool(tool.definition));
}
