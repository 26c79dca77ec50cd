import type { ToolDefinition } from "./definition";
import { NameRegistry, toIdentifier } from "./tool-names";

/**
 * Names shared between sources. A tenant's tools come from several sources (an OpenAPI document,
 * a list, an MCP server), and two of them may name an operation alike (`getSearchMovie`). An
 * import never replaces another source's tool: the tool already there keeps its name, and the new
 * one is named after its source (`getSearchMovie_otherApi`), the same on every import of that
 * source, so re-importing it stays idempotent and programs and routing keep both.
 */

/**
 * `tools` of `source` with every name another source already holds (`otherSources`: tool name →
 * its source) changed to `<name>_<source>` (or `<name>_<source>_2`… when that is taken too), and
 * one warning per tool renamed.
 */
export function keepOtherSourcesTools(
  tools: ToolDefinition[],
  source: string,
  otherSources: Readonly<Record<string, string>>,
): { tools: ToolDefinition[]; warnings: string[] } {
  const clashing = tools.filter((tool) => Object.hasOwn(otherSources, tool.name));
  if (clashing.length === 0) return { tools, warnings: [] };
  const names = new NameRegistry();
  for (const name of Object.keys(otherSources)) names.reserve(name);
  for (const tool of tools) names.reserve(tool.name);
  const suffix = toIdentifier(source) || "import";
  const warnings: string[] = [];
  const renamed = tools.map((tool) => {
    if (!Object.hasOwn(otherSources, tool.name)) return tool;
    const name = names.claim(`${tool.name}_${suffix}`);
    warnings.push(`${tool.name}: the name belongs to a tool of source "${otherSources[tool.name]}", which is kept; this one is named "${name}".`);
    return { ...tool, name };
  });
  return { tools: renamed, warnings };
}
